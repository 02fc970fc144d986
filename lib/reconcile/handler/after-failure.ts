/**
 * What becomes of a work message whose step threw (docs/design.md, 13. Failures: retries, backoff
 * and the DLQ): requeued with backoff through the delayed path, dead-lettered with its reason, or,
 * only when neither can be sent, rejected so SQS redelivers the record.
 */
import type { SQSRecord } from 'aws-lambda';
import { classifyFailure, transientBackoffSeconds } from '../../kube/errors/transient-failure.ts';
import { failuresOf, withRequeueCause } from '../../messages/requeue-envelope.ts';
import type { WorkMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import type { RecordOutcome } from './record-outcome.ts';

/**
 * Times a message is sent back through the delayed path (1, 2, 4, 8 s apart) after a failure that
 * is retryable but not transient — a Conflict, an unexpected exception — before it goes to the DLQ
 * with its reason. Transient failures (the API server unreachable or overloaded) are sent back
 * without limit (see `kube/errors/transient-failure.ts`). Nothing is left to SQS's redelivery but a requeue that
 * could not be sent: redelivery holds the whole FIFO group — every later step of a DaemonSet — for
 * the visibility timeout, and past the queue's maxReceiveCount moves the message to the DLQ with
 * no reason.
 */
export const MAX_FAILURE_REQUEUES = 4;

/**
 * The prefix of a requeue cause's reason after a transient failure. Transient and other failures
 * share the cause's one `failures` count (which grows the backoff); the prefix tells which kind the
 * last one was, so an outage's requeues do not count towards {@link MAX_FAILURE_REQUEUES}.
 */
const TRANSIENT_REASON = 'unavailable: ';

/** The prefix of a requeue cause's reason after a retryable, not transient, failure. */
const FAILED_REASON = 'failed: ';

/** The reason of a requeue after a 429 (its own prefix: a throttle is transient too). */
const THROTTLED_REASON = 'API server answered 429';

/**
 * `again` with the hints `message` ran with: a step the API server throttled runs again as it
 * would have, on hints a Retry-After older (docs/design.md, 13. Failures: a 429 keeps its hints).
 */
function withHintsOf(again: WorkMessage, message: Readonly<WorkMessage>): WorkMessage {
  if (again.kind === 'pair' && message.kind === 'pair' && message.hints !== undefined)
    return { ...again, hints: message.hints };
  if (again.kind === 'node' && message.kind === 'node' && message.hints !== undefined)
    return { ...again, hints: message.hints };
  return again;
}

/** What becomes of `message` whose step threw `error` (see `reconcileRecord`, work-record.ts). */
export async function afterFailure(
  deps: ReconcileDeps,
  record: Readonly<SQSRecord>,
  message: WorkMessage,
  error: unknown,
): Promise<RecordOutcome> {
  const groupId = record.attributes.MessageGroupId;
  const failure = classifyFailure(error);
  if (failure.type === 'permanent')
    return deadLetter(deps, record, `can never succeed: ${messageOf(error)}`, groupId);
  const failures = failuresOf(message);
  if (failure.type === 'transient') {
    if (failure.retryAfterSeconds !== undefined) {
      const retryAfterSeconds = failure.retryAfterSeconds;
      const again = withFailureCause(message, THROTTLED_REASON, deps.clock(), failures + 1);
      await requeueOrFail(deps, withHintsOf(again, message), retryAfterSeconds, error);
      return { type: 'throttled', retryAfterSeconds, failures: failures + 1 };
    }
    const afterSeconds = transientBackoffSeconds(failures);
    const reason = `${TRANSIENT_REASON}${messageOf(error)}`;
    await requeueOrFail(
      deps,
      withFailureCause(message, reason, deps.clock(), failures + 1),
      afterSeconds,
      error,
    );
    return {
      type: 'retried',
      afterSeconds,
      error: messageOf(error),
      transient: true,
      failures: failures + 1,
    };
  }
  // Only the failures of this kind in a row count towards the limit: a Conflict after an outage is
  // a first failure, though the outage's requeues grew the backoff.
  const previous = isFailedCause(message) ? failures : 0;
  if (previous >= MAX_FAILURE_REQUEUES)
    return deadLetter(
      deps,
      record,
      `failed ${previous + 1} times in a row, the last: ${messageOf(error)}`,
      groupId,
    );
  const afterSeconds = 2 ** previous;
  const reason = `${FAILED_REASON}${messageOf(error)}`;
  await requeueOrFail(
    deps,
    withFailureCause(message, reason, deps.clock(), previous + 1),
    afterSeconds,
    error,
  );
  return { type: 'retried', afterSeconds, error: messageOf(error), transient: false, failures: previous + 1 };
}

/** True when `message` was last sent back after a retryable failure that was not transient. */
function isFailedCause(message: Readonly<WorkMessage>): boolean {
  return message.cause.type === 'requeue' && message.cause.reason.startsWith(FAILED_REASON);
}

/**
 * `message` sent again after a failure, for `reason`, with `failures` failures in a row (see
 * withRequeueCause; the count is set here, since a transient failure and another one share it).
 */
function withFailureCause(
  message: Readonly<WorkMessage>,
  reason: string,
  now: Date,
  failures: number,
): WorkMessage {
  const again = withRequeueCause(message, reason, now);
  if (again.cause.type !== 'requeue') return again;
  return { ...again, cause: { ...again.cause, failures } };
}

/**
 * Sends `message` back through the delayed path after `afterSeconds`; when that send fails too (the
 * ingress queue unavailable), rejects with the step's `error`, so the record is reported failed and
 * SQS redelivers it: the work is never lost, only then left to the receive count.
 */
async function requeueOrFail(
  deps: ReconcileDeps,
  message: WorkMessage,
  afterSeconds: number,
  error: unknown,
): Promise<void> {
  try {
    await deps.ports.requeue.requeue(message, afterSeconds);
  } catch (sendError) {
    deps.ports.logger.warn('sending a failed message back failed; SQS redelivers it', {
      error: messageOf(error),
      sendError: messageOf(sendError),
    });
    throw error;
  }
}

/** Sends `record` to the work DLQ with `reason`. */
export async function deadLetter(
  deps: ReconcileDeps,
  record: Readonly<SQSRecord>,
  reason: string,
  groupId: string | undefined,
): Promise<RecordOutcome> {
  deps.ports.logger.error('sending a message to the DLQ', { messageId: record.messageId, reason });
  await deps.ports.deadLetter.deadLetter(record.body, reason, groupId);
  return { type: 'dead-lettered', reason };
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
