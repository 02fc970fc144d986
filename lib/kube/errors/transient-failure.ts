/**
 * What a failed step's error means for its message (docs/design.md, 13. Failures: retries, backoff
 * and the DLQ): a pure decision on the error alone, so the rule is one table.
 *
 * - `transient`: the API server (or a queue) is unreachable or overloaded — no answer at all
 *   (connection refused or reset, DNS, a timeout), a 5xx, a 408, a 429. The work is right and will
 *   succeed once the server is back, however long that takes: it is requeued with a growing delay
 *   and never left to SQS's receive count, so an outage never dead-letters it.
 * - `retryable`: another failure that may pass (a 409 Conflict, a 410, a 401, an unexpected
 *   exception): requeued with backoff a few times, then dead-lettered with its reason.
 * - `permanent`: work that can never succeed (a poison message, 422 Invalid, 400, 403): dead-lettered
 *   at once, with its reason.
 */
import { EverynodeError } from '../../errors/everynode-error.ts';
import { KubeApiError, KubeConnectionError, ServerError, TooManyRequestsError } from './kube-api-errors.ts';

/** What an error means for the message whose step threw it. */
export type FailureClass =
  /** Try again later with a growing delay, for as long as it takes; `retryAfterSeconds` when the server named the wait. */
  | { readonly type: 'transient'; readonly retryAfterSeconds?: number }
  /** Try again a few times, then give up with the reason. */
  | { readonly type: 'retryable' }
  /** Never try again: dead-letter with the reason. */
  | { readonly type: 'permanent' };

/**
 * Codes of a failure to reach a server at all (Node's socket and DNS errors, undici's), which every
 * cause of a transient outage — the server down, restarting, behind a flapping load balancer or a
 * DNS change — surfaces as.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Error names of a request that got no answer in time (AbortSignal.timeout, the AWS SDK's). */
const TIMEOUT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'RequestTimeout', 'AbortError']);

/** HTTP statuses of an answer that says "later": 408 Request Timeout, 429, and every 5xx. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** `error` and its causes, outermost first (at most a few levels: causes may loop). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && at !== null && chain.length < 8; ) {
    if (chain.includes(at)) break;
    chain.push(at);
    at = typeof at === 'object' ? (at as { cause?: unknown }).cause : undefined;
  }
  return chain;
}

/**
 * True when `error` (not one of everynode's typed errors) is a failure to reach a server or to hear
 * back in time: a socket or DNS error code, a timeout, or an AWS SDK error the SDK itself deems
 * transient (throttling, a 5xx) — an SQS send that failed while the queue is unavailable.
 */
function isUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, $metadata, $retryable } = error as {
    code?: unknown;
    name?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    $retryable?: unknown;
  };
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  if (typeof name === 'string' && TIMEOUT_NAMES.has(name)) return true;
  if ($retryable !== undefined && $retryable !== null) return true;
  const status = $metadata?.httpStatusCode;
  return typeof status === 'number' && isTransientStatus(status);
}

/**
 * What `error`, thrown by a step, means for its message ({@link FailureClass}). Everynode's typed
 * errors say so by class and status: a {@link TooManyRequestsError} is transient after its
 * Retry-After; a {@link ServerError} (5xx), a 408 and a {@link KubeConnectionError} (no answer) are
 * transient; any other error that is not retryable is permanent, and the rest retryable. An error
 * of no everynode class is transient when it, or an error it wraps, is a failure to reach a server
 * ({@link UNREACHABLE_CODES}, a timeout, an AWS SDK throttle or 5xx), else retryable — an
 * unexpected exception may be a bug, which no amount of waiting fixes.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof TooManyRequestsError)
    return { type: 'transient', retryAfterSeconds: Math.max(1, error.retryAfterSeconds) };
  if (error instanceof ServerError || error instanceof KubeConnectionError) return { type: 'transient' };
  if (error instanceof KubeApiError && isTransientStatus(error.status)) return { type: 'transient' };
  if (error instanceof EverynodeError) return { type: error.retryable ? 'retryable' : 'permanent' };
  return causeChain(error).some(isUnreachable) ? { type: 'transient' } : { type: 'retryable' };
}

/** The first transient requeue's delay, in seconds; each one after doubles it. */
export const TRANSIENT_BACKOFF_BASE_SECONDS = 1;

/**
 * The longest delay between two tries of work that failed transiently: five minutes, so an outage
 * of hours costs each waiting message one try per five minutes, and the work runs at most five
 * minutes after the server is back (the relay's relist after its watches come back brings most of
 * it sooner).
 */
export const MAX_TRANSIENT_BACKOFF_SECONDS = 300;

/**
 * The delay before the next try of work that failed transiently after `failures` failures in a row
 * (0 for its first): 1, 2, 4, 8 … s, capped at {@link MAX_TRANSIENT_BACKOFF_SECONDS}.
 */
export function transientBackoffSeconds(failures: number): number {
  const exponent = Math.max(0, Math.min(30, Math.floor(failures)));
  return Math.min(MAX_TRANSIENT_BACKOFF_SECONDS, TRANSIENT_BACKOFF_BASE_SECONDS * 2 ** exponent);
}
