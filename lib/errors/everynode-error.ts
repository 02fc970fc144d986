/**
 * The one base class of everynode's errors
 * (docs/design.md, 4. Decisions are data; one executor applies them): every typed error says
 * whether trying the same work again later can succeed, so the handler can retry it or send it to
 * the DLQ at once (docs/design.md, 13. Failures: retries, backoff and the DLQ).
 */

/** Options of {@link EverynodeError}: the wrapped error, when there is one. */
export interface EverynodeErrorOptions {
  readonly cause?: unknown;
}

/**
 * Base of every error everynode throws on purpose. `retryable` is true when the same work may
 * succeed if tried again later (a conflict, a throttle, a server error), false when it never will
 * (an invalid object, a poison message, a forbidden request).
 */
export class EverynodeError extends Error {
  /** True when trying the same work again later can succeed. */
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options: EverynodeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retryable = retryable;
  }
}

/**
 * Whether `error` may succeed when retried: the `retryable` flag of an {@link EverynodeError}; any
 * other error (a bug, an unexpected exception) counts as retryable so that it goes through the
 * queue's receive count before the DLQ rather than being dropped on its first occurrence.
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof EverynodeError ? error.retryable : true;
}
