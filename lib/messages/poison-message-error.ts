/**
 * The error of a message that can never succeed, whatever is retried.
 */
import { EverynodeError } from '../errors/everynode-error.ts';

/**
 * A message that does not parse, or names an unknown kind or version: never retryable, so the
 * handler sends it to the DLQ at once with `reason` instead of burning receives on it.
 */
export class PoisonMessageError extends EverynodeError {
  /** Why the message can never be processed, as `parseWorkMessage` or `parseTrigger` said. */
  readonly reason: string;
  /** The SQS message id, when known, for the DLQ record and the logs. */
  readonly messageId: string | undefined;

  constructor(reason: string, options: { messageId?: string; cause?: unknown } = {}) {
    const which = options.messageId === undefined ? 'a message' : `message ${options.messageId}`;
    super(`rejecting ${which} that can never be processed: ${reason}`, false, { cause: options.cause });
    this.reason = reason;
    this.messageId = options.messageId;
  }
}
