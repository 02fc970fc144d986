/**
 * One SQS record of the work queue, as the reconcile function handles it: parse, de-duplicate
 * within the batch, reconcile, and decide what an error means
 * (docs/design.md, 13. Failures: retries, backoff and the DLQ).
 */
import type { SQSRecord } from 'aws-lambda';
import { isNamespaceGone } from '../../kube/namespace-gone.ts';
import { messageGroupId } from '../../messages/message-group-id.ts';
import type { ParseResult } from '../../messages/parse-json-object.ts';
import { parseWorkMessage } from '../../messages/parse-work-message.ts';
import { failuresOf, withRequeueCause } from '../../messages/requeue-envelope.ts';
import type { WorkMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import type { StepReport } from '../effects/step-report.ts';
import { reconcileMessage } from './message-step.ts';
import { withBatchNodeFacts } from './node-message-batch.ts';
import { classifyFailure, transientBackoffSeconds } from './transient-failure.ts';

/** How a record ended; every outcome but a thrown error reports the record as processed. */
export type RecordOutcome =
  | {
      readonly type: 'reconciled';
      readonly kind: WorkMessage['kind'];
      readonly report: StepReport;
      readonly millis: number;
    }
  | { readonly type: 'duplicate' }
  /** A write was refused because the namespace is terminating or gone: nothing is left to do. */
  | { readonly type: 'namespace-gone' }
  | { readonly type: 'dead-lettered'; readonly reason: string }
  | { readonly type: 'throttled'; readonly retryAfterSeconds: number; readonly failures: number }
  /**
   * Sent back with backoff after a failure: `transient` (the API server unreachable, a 5xx, a
   * timeout) for as long as it takes, else at most {@link MAX_FAILURE_REQUEUES} times. `failures`
   * counts the failures in a row, this one included.
   */
  | {
      readonly type: 'retried';
      readonly afterSeconds: number;
      readonly error: string;
      readonly transient: boolean;
      readonly failures: number;
    };

/**
 * Times a message is sent back through the delayed path (1, 2, 4, 8 s apart) after a failure that
 * is retryable but not transient — a Conflict, an unexpected exception — before it goes to the DLQ
 * with its reason. Transient failures (the API server unreachable or overloaded) are sent back
 * without limit (see `transient-failure.ts`). Nothing is left to SQS's redelivery but a requeue that
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
 * What one target of work is: its FIFO group (the pair, the DaemonSet or the node) and the
 * DaemonSet uid. Two messages with the same key in one batch are the same work: the reconcile reads
 * the current state, which already includes whatever made either message.
 */
export function workKey(message: Readonly<WorkMessage>): string {
  const uid = message.kind === 'node' ? '' : (message.daemonSet.uid ?? '');
  return `${messageGroupId(message)}#${uid}`;
}

/** A record with its body parsed: the work message, or the reason the body is not one. */
export interface ParsedRecord {
  readonly record: Readonly<SQSRecord>;
  readonly parsed: ParseResult<'message', WorkMessage>;
}

/** A batch's records parsed and by work key: the first record of each key, and the keys seen more than once. */
export interface BatchPlan {
  /** Every record of the batch with its parsed body, by messageId: each body is parsed once. */
  readonly records: ReadonlyMap<string, ParsedRecord>;
  /** messageId of the record that runs each key. */
  readonly runner: ReadonlyMap<string, string>;
  /** Keys with several records: their one run reads the pair afresh instead of trusting one record's hints. */
  readonly repeated: ReadonlySet<string>;
  /** When the batch arrived (ms since the epoch): reads begun since then see what sent its messages. */
  readonly receivedAt: number;
}

/** `record` with its body parsed. */
export function parseRecord(record: Readonly<SQSRecord>): ParsedRecord {
  return { record, parsed: parseWorkMessage(record.body) };
}

/**
 * The plan of `records`: each record parsed, and which record reconciles each key; records that do
 * not parse run no key.
 */
export function planBatch(records: readonly Readonly<SQSRecord>[], receivedAt = Date.now()): BatchPlan {
  const parsedRecords = new Map<string, ParsedRecord>();
  const runner = new Map<string, string>();
  const repeated = new Set<string>();
  for (const record of records) {
    const entry = parseRecord(record);
    parsedRecords.set(record.messageId, entry);
    if (!entry.parsed.ok) continue;
    const key = workKey(entry.parsed.message);
    if (runner.has(key)) repeated.add(key);
    else runner.set(key, record.messageId);
  }
  return { records: parsedRecords, runner, repeated, receivedAt };
}

/** `message` without the hints it carries (a pair's or a node's): its step reads instead. */
function withoutHints(message: WorkMessage): WorkMessage {
  if (message.kind === 'daemonset' || message.hints === undefined) return message;
  const { hints: _hints, ...rest } = message;
  return rest;
}

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

/**
 * True when the record is a replay (cause `replay`: an archived trigger sent again, its hints as old
 * as the event it replays) or a redelivery (`ApproximateReceiveCount` > 1: an earlier receive may
 * have acted on it, and the cluster moved on since).
 */
export function isReplayOrRedelivery(record: Readonly<SQSRecord>, message: Readonly<WorkMessage>): boolean {
  return message.cause.type === 'replay' || Number(record.attributes.ApproximateReceiveCount ?? '1') > 1;
}

/**
 * The message the record's step runs (docs/design.md, 9. Hints, and why a stale hint is safe):
 * without its hints when it is a replay or a redelivery — the facts it carries may be older than
 * what the cluster has shown since, even within the hint window (a node tainted and untainted
 * again) — and without a pair's hints when the batch holds several records for its key; else as
 * sent.
 */
export function messageToRun(
  record: Readonly<SQSRecord>,
  message: WorkMessage,
  repeated: boolean,
): WorkMessage {
  if (isReplayOrRedelivery(record, message)) return withoutHints(message);
  return repeated && message.kind === 'pair' ? withoutHints(message) : message;
}

/**
 * Handles one record, its body parsed once by {@link planBatch}: a body that is not a valid work
 * message, or work that can never succeed (a terminal error such as 422 Invalid), goes to the DLQ
 * at once with its reason; a later record of a key already run in this batch is skipped; a replay
 * or redelivery runs without its hints ({@link messageToRun}). A failure is classified by
 * `classifyFailure` (docs/design.md, 13. Failures: retries, backoff and the DLQ): a transient one —
 * the API server unreachable, a 5xx, a timeout, a 429 — sends the message back through the delayed
 * path with a growing delay (a 429 after its Retry-After, hints kept) for as long as it fails, and
 * counts the record as processed, so an outage never burns a receive nor reaches the DLQ; another
 * retryable error is sent back with backoff {@link MAX_FAILURE_REQUEUES} times, then dead-lettered
 * with its reason. Only a requeue or dead letter that cannot be sent (the queue unavailable too)
 * rejects: the batch processor reports the record as failed and SQS redelivers it.
 */
export async function reconcileRecord(
  deps: ReconcileDeps,
  { record, parsed }: Readonly<ParsedRecord>,
  plan: Readonly<BatchPlan>,
): Promise<RecordOutcome> {
  const groupId = record.attributes.MessageGroupId;
  if (!parsed.ok) return deadLetter(deps, record, `poison message: ${parsed.reason}`, groupId);
  const key = workKey(parsed.message);
  if (plan.runner.get(key) !== record.messageId) return { type: 'duplicate' };
  const repeated = plan.repeated.has(key);
  // The node messages skipped as duplicates of this one keep their gate keys and newer hints in it.
  const first = repeated
    ? withBatchNodeFacts(parsed.message, plan.records.values(), isReplayOrRedelivery)
    : parsed.message;
  const message = messageToRun(record, first, repeated);
  const started = performance.now();
  try {
    const sentAt = Number(record.attributes.SentTimestamp) || undefined;
    const report = await reconcileMessage(deps, message, plan.receivedAt, sentAt);
    return { type: 'reconciled', kind: message.kind, report, millis: performance.now() - started };
  } catch (error) {
    if (isNamespaceGone(error)) {
      deps.ports.logger.debug('namespace torn down; the work is done', { error: messageOf(error) });
      return { type: 'namespace-gone' };
    }
    return afterFailure(deps, record, message, error);
  }
}

/** What becomes of `message` whose step threw `error` (see {@link reconcileRecord}). */
async function afterFailure(
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

async function deadLetter(
  deps: ReconcileDeps,
  record: Readonly<SQSRecord>,
  reason: string,
  groupId: string | undefined,
): Promise<RecordOutcome> {
  deps.ports.logger.error('sending a message to the DLQ', { messageId: record.messageId, reason });
  await deps.ports.deadLetter.deadLetter(record.body, reason, groupId);
  return { type: 'dead-lettered', reason };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
