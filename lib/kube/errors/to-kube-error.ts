/**
 * Conversion of what `@kubernetes/client-node` throws (ApiException with code, body, headers) and
 * of network failures into the typed errors of `kube-api-errors.ts`, at the adapter boundary.
 */
import { EverynodeError } from '../../errors/everynode-error.ts';
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  KubeApiError,
  type KubeApiErrorDetails,
  KubeConnectionError,
  NotFoundError,
  ServerError,
  type StatusCause,
  TooLargeResourceVersionError,
  TooManyRequestsError,
  UnauthorizedError,
} from './kube-api-errors.ts';

/** The parts of a metav1.Status the conversion reads. */
interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: StatusCause[]; retryAfterSeconds?: number; kind?: string };
}

/** An error answer as client-node hands it over: HTTP code, raw body, response headers. */
export interface ApiAnswer {
  readonly code: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

function statusOf(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return statusOf(JSON.parse(body));
    } catch {
      return body === '' ? {} : { message: body.slice(0, 500) };
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusBody) : {};
}

function retryAfterSeconds(headers: ApiAnswer['headers'], status: StatusBody): number {
  const header = Object.entries(headers).find(([key]) => key.toLowerCase() === 'retry-after')?.[1];
  const seconds = header === undefined ? Number.NaN : Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const fromDate = header === undefined ? Number.NaN : Date.parse(header);
  if (Number.isFinite(fromDate)) return Math.max(0, Math.ceil((fromDate - Date.now()) / 1000));
  return status.details?.retryAfterSeconds ?? 1;
}

/** What client-go's reflector.go `isTooLargeResourceVersionError` recognises. */
const TOO_LARGE = 'Too large resource version';

/**
 * Whether the answer says the requested resourceVersion is newer than the server's (client-go
 * reflector.go `isTooLargeResourceVersionError`): the cause type ResourceVersionTooLarge, or, from
 * servers before 1.18.6 that set no cause type, a Timeout whose cause or message says so.
 */
function isTooLargeResourceVersion(code: number, status: StatusBody): boolean {
  const causes = status.details?.causes ?? [];
  if (causes.some((cause) => cause.reason === 'ResourceVersionTooLarge')) return true;
  if (status.reason !== 'Timeout' && code !== 504) return false;
  return causes.some((cause) => cause.message === TOO_LARGE) || (status.message ?? '').includes(TOO_LARGE);
}

/**
 * The typed error for the API server's answer `answer` to the request described by `doing`
 * ("creating pod x for node n1"): 409 AlreadyExists / Conflict, 404, 422, 400, 410, 429 (with its
 * Retry-After), 401, 403, 5xx (a 504 "Too large resource version" as TooLargeResourceVersionError);
 * any other code is a KubeApiError, retryable only for 408.
 */
export function apiErrorOf(answer: ApiAnswer, doing: string, cause?: unknown): KubeApiError {
  const status = statusOf(answer.body);
  const reason = status.reason ?? '';
  const details: KubeApiErrorDetails = {
    status: answer.code,
    reason,
    causes: status.details?.causes ?? [],
    ...(status.details?.kind ? { kind: status.details.kind } : {}),
    cause,
  };
  const message = `${doing}: ${status.message || 'no message'} (HTTP ${answer.code}${reason ? ` ${reason}` : ''})`;
  switch (answer.code) {
    case 400:
      return new BadRequestError(message, details);
    case 401:
      return new UnauthorizedError(message, details);
    case 403:
      return new ForbiddenError(message, details);
    case 404:
      return new NotFoundError(message, details);
    case 409:
      // metav1.StatusReasonAlreadyExists; any other 409 is a failed precondition (StatusReasonConflict).
      return reason === 'AlreadyExists'
        ? new AlreadyExistsError(message, details)
        : new ConflictError(message, details);
    case 410:
      return new GoneError(message, details);
    case 422:
      return new InvalidError(message, details);
    case 429:
      return new TooManyRequestsError(message, {
        ...details,
        retryAfterSeconds: retryAfterSeconds(answer.headers, status),
      });
  }
  if (answer.code >= 500)
    return isTooLargeResourceVersion(answer.code, status)
      ? new TooLargeResourceVersionError(message, details)
      : new ServerError(message, details);
  return new KubeApiError(message, answer.code === 408, details);
}

function isApiAnswer(error: unknown): error is ApiAnswer & Error {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'number' && 'body' in error;
}

/**
 * `error`, thrown while `doing`, as an EverynodeError: an API answer becomes its typed error
 * ({@link apiErrorOf}), an EverynodeError is kept, anything else (connection refused, reset, TLS,
 * DNS) becomes a retryable KubeConnectionError. The original is always the `cause`.
 */
export function toKubeError(error: unknown, doing: string): EverynodeError {
  if (error instanceof EverynodeError) return error;
  if (isApiAnswer(error)) {
    return apiErrorOf({ code: error.code, body: error.body, headers: headersOf(error) }, doing, error);
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new KubeConnectionError(`${doing}: no answer from the API server (${detail})`, { cause: error });
}

function headersOf(error: object): Record<string, string | undefined> {
  const headers = (error as { headers?: unknown }).headers;
  return typeof headers === 'object' && headers !== null
    ? (headers as Record<string, string | undefined>)
    : {};
}
