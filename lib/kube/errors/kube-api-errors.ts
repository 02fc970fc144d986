/**
 * Typed errors of the Kubernetes API, one class per answer the pipeline treats differently
 * (apimachinery pkg/api/errors: IsAlreadyExists, IsConflict, IsNotFound, IsInvalid,
 * IsTooManyRequests, IsGone, IsForbidden, IsUnauthorized, IsInternalError/IsServerTimeout; and
 * apiserver storage `IsTooLargeResourceVersion`).
 */
import { EverynodeError } from '../../errors/everynode-error.ts';

/** One field problem of a 422 Invalid answer (metav1.StatusCause). */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** What the API server answered: HTTP status, the Status `reason` and its field causes. */
export interface KubeApiErrorDetails {
  readonly status: number;
  /** The metav1.Status reason (`AlreadyExists`, `Conflict`, …), or '' when the body had none. */
  readonly reason: string;
  readonly causes?: readonly StatusCause[];
  /** The Status details' `kind`: the resource the answer is about (`pods`, `namespaces`, …), when given. */
  readonly kind?: string;
  readonly cause?: unknown;
}

/** An error answer of the API server. `status` is the HTTP status. */
export class KubeApiError extends EverynodeError {
  readonly status: number;
  readonly reason: string;
  readonly causes: readonly StatusCause[];
  /** The resource the answer is about (the Status details' `kind`), or '' when not given. */
  readonly kind: string;

  constructor(message: string, retryable: boolean, details: KubeApiErrorDetails) {
    super(message, retryable, { cause: details.cause });
    this.status = details.status;
    this.reason = details.reason;
    this.causes = details.causes ?? [];
    this.kind = details.kind ?? '';
  }
}

/** 409 AlreadyExists: the name is taken. For a deterministic pod name, the work is already done. */
export class AlreadyExistsError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, false, details);
  }
}

/** 409 Conflict: a precondition (uid, resourceVersion) failed; read again and re-plan. */
export class ConflictError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, true, details);
  }
}

/** 404 NotFound: the object is gone. For a delete, the work is already done. */
export class NotFoundError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, false, details);
  }
}

/** 422 Invalid: the object was refused; `causes` names the fields. Retrying sends the same object. */
export class InvalidError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, false, details);
  }
}

/** 400 BadRequest: the request itself is malformed. */
export class BadRequestError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, false, details);
  }
}

/** 410 Gone: a watch or list continue token older than the API server keeps; list again. */
export class GoneError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, true, details);
  }
}

/**
 * 429 TooManyRequests (API Priority and Fairness, or an eviction budget): try again after
 * `retryAfterSeconds`, from the `Retry-After` header (else the Status details, else 1).
 */
export class TooManyRequestsError extends KubeApiError {
  readonly retryAfterSeconds: number;

  constructor(message: string, details: KubeApiErrorDetails & { retryAfterSeconds: number }) {
    super(message, true, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** 5xx (internal error, unavailable, timeout): the server failed; retrying may succeed. */
export class ServerError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, true, details);
  }
}

/**
 * 504 Timeout "Too large resource version": the read asked for a resourceVersion the server has
 * not reached (storage.NewTooLargeResourceVersionError; client-go reflector.go
 * `isTooLargeResourceVersionError`). Retryable, as it may catch up; a version that never will (from
 * another cluster, or from before an etcd restore) needs a fresh list instead.
 */
export class TooLargeResourceVersionError extends ServerError {}

/** 403 Forbidden: RBAC denies the request; nothing changes until the role does. */
export class ForbiddenError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, false, details);
  }
}

/** 401 Unauthorized: the credentials were refused (an expired token is refreshed on retry). */
export class UnauthorizedError extends KubeApiError {
  constructor(message: string, details: KubeApiErrorDetails) {
    super(message, true, details);
  }
}

/** No answer at all: connection refused or reset, DNS, TLS, timeout. */
export class KubeConnectionError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, true, options);
  }
}
