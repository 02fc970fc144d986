/**
 * One SQS record of the work queue, as the reconcile function handles it: parse, de-duplicate
 * within the batch, reconcile, and decide what an error means
 * (docs/design.md, 13. Failures: retries, backoff and the DLQ).
 */
import type { SQSRecord } from 'aws-lambda';
import { isNamespaceGone } from '../../kube/errors/namespace-gone.ts';
import { messageGroupId } from '../../messages/message-group-id.ts';
import type { ParseResult } from '../../messages/parse-json-object.ts';
import { parseWorkMessage } from '../../messages/parse-work-message.ts';
import type { WorkMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { afterFailure, deadLetter, messageOf } from './after-failure.ts';
import { reconcileMessage } from './message-step.ts';
import { withBatchNodeFacts } from './node-message-batch.ts';
import type { RecordOutcome } from './record-outcome.ts';

export { MAX_FAILURE_REQUEUES } from './after-failure.ts';
export type { RecordOutcome } from './record-outcome.ts';

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
