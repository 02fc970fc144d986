/**
 * Errors of the simulated API server, shaped like the `metav1.Status` the real one answers with
 * (staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go), so clients see the same codes,
 * reasons, messages and `details.causes`.
 */

/** One field error, as `field.Error` in apimachinery/pkg/util/validation/field/errors.go. */
export interface FieldError {
  /** Cause reason: FieldValueRequired, FieldValueInvalid, FieldValueForbidden, ... */
  readonly type: string;
  /** JSON path of the field, such as `spec.template.metadata.labels`. */
  readonly field: string;
  /** What is wrong, already formatted (`Required value`, `Invalid value: "x": must be ...`). */
  readonly message: string;
}

/** A `details.causes[]` entry of a Status. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** The `details` of a Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A `meta/v1` Status object, as the server writes it on the wire. */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

/** What a resource is called in error messages: plural resource and group. */
export interface ResourceName {
  readonly plural: string;
  readonly group: string;
}

/** `pods` or `daemonsets.apps`, as `schema.GroupResource.String()`. */
function qualified(resource: Readonly<ResourceName>): string {
  return resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
}

/** A request the simulated API server refuses, with the HTTP status and Status reason it answers. */
export class SimApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(
    status: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SimApiError';
    this.status = status;
    this.reason = reason;
    this.details = details;
  }

  /** The Status object to send as the response body (or inside a watch ERROR event). */
  toStatus(): StatusObject {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.status,
    };
  }

  /** 404 NotFound: `pods "x" not found` (errors.NewNotFound). */
  static notFound(resource: Readonly<ResourceName>, name: string): SimApiError {
    return new SimApiError(404, 'NotFound', `${qualified(resource)} "${name}" not found`, {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.plural,
    });
  }

  /** 409 AlreadyExists: `pods "x" already exists` (errors.NewAlreadyExists). */
  static alreadyExists(resource: Readonly<ResourceName>, name: string): SimApiError {
    return new SimApiError(409, 'AlreadyExists', `${qualified(resource)} "${name}" already exists`, {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.plural,
    });
  }

  /** 409 Conflict: `Operation cannot be fulfilled on pods "x": <why>` (errors.NewConflict). */
  static conflict(resource: Readonly<ResourceName>, name: string, why: string): SimApiError {
    return new SimApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(resource)} "${name}": ${why}`,
      {
        name,
        ...(resource.group ? { group: resource.group } : {}),
        kind: resource.plural,
      },
    );
  }

  /** 422 Invalid: `DaemonSet.apps "x" is invalid: [a: ..., b: ...]` (errors.NewInvalid). */
  static invalid(kind: string, group: string, name: string, errors: readonly FieldError[]): SimApiError {
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    const texts = errors.map((e) => `${e.field}: ${e.message}`);
    const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
    return new SimApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
      name,
      ...(group ? { group } : {}),
      kind,
      causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
    });
  }

  /** 400 BadRequest with the message as given (errors.NewBadRequest). */
  static badRequest(message: string): SimApiError {
    return new SimApiError(400, 'BadRequest', message);
  }

  /** 403 Forbidden: `pods "x" is forbidden: <why>` (errors.NewForbidden). */
  static forbidden(
    resource: Readonly<ResourceName>,
    name: string,
    why: string,
    cause?: StatusCause,
  ): SimApiError {
    return new SimApiError(403, 'Forbidden', `${qualified(resource)} "${name}" is forbidden: ${why}`, {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.plural,
      ...(cause ? { causes: [cause] } : {}),
    });
  }

  /** 410 Expired (errors.NewResourceExpired), as watch and continue tokens past the window get. */
  static expired(message: string): SimApiError {
    return new SimApiError(410, 'Expired', message);
  }

  /**
   * 504 Timeout for a read at a resourceVersion the store has not reached (apiserver
   * storage.NewTooLargeResourceVersionError over errors.NewTimeoutError: "Timeout: " prefix, the
   * cause clients recognise it by, and retry after 1 s as the watch cache asks).
   */
  static tooLargeResourceVersion(requested: number, current: number): SimApiError {
    return new SimApiError(
      504,
      'Timeout',
      `Timeout: Too large resource version: ${requested}, current: ${current}`,
      {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
    );
  }

  /** 405 MethodNotAllowed (errors.NewMethodNotSupported). */
  static methodNotAllowed(resource: Readonly<ResourceName>, verb: string): SimApiError {
    return new SimApiError(
      405,
      'MethodNotAllowed',
      `${verb} is not supported on resources of kind "${qualified(resource)}"`,
      {
        ...(resource.group ? { group: resource.group } : {}),
        kind: resource.plural,
      },
    );
  }

  /** 500 InternalError (errors.NewInternalError). */
  static internal(message: string, options?: ErrorOptions): SimApiError {
    return new SimApiError(
      500,
      'InternalError',
      `Internal error occurred: ${message}`,
      {
        causes: [{ message }],
      },
      options,
    );
  }
}

/** True when `error` is a SimApiError with the given status code. */
export function isSimApiError(error: unknown, status?: number): error is SimApiError {
  return error instanceof SimApiError && (status === undefined || error.status === status);
}
