/**
 * Several `node` messages for one node in one batch of the work queue (docs/design.md, 6. Work
 * messages, FIFO groups and de-duplication ids; 26. Node readiness gates). Records of the same work
 * key run once, and the others are skipped as its duplicates: so the one run must stand for all of
 * them. The gating pods of a joining node turn ready within moments of each other, and each of
 * their events brings a node message with the relay's hints as of that event: run on the oldest
 * hints, the step would see the last gating pod not ready, keep the gate, and nothing would come
 * to release the node.
 */
import type { SQSRecord } from 'aws-lambda';
import { timestampMillis } from '../../core/pod-availability.ts';
import type { NodeHints } from '../../messages/node-hints.ts';
import type { ParseResult } from '../../messages/parse-json-object.ts';
import type { NodeMessage, WorkMessage } from '../../messages/work-message.ts';

/** One record of the batch, its body parsed. */
interface BatchRecord {
  readonly record: Readonly<SQSRecord>;
  readonly parsed: ParseResult<'message', WorkMessage>;
}

/** True when a record's hints must not be planned from (a replay or a redelivery). */
type HintsUnusable = (record: Readonly<SQSRecord>, message: Readonly<WorkMessage>) => boolean;

/**
 * The hints that stand for every one of `same` (the batch's node messages of one node): the newest
 * by `observedAt` (the latest of the batch on a tie) when each of them carries hints it may plan
 * from; else none, and the step reads the node — a message without hints (a requeue, a gate
 * change's fan-out, a replay or a redelivery) asks for the node as it is now.
 */
function newestHints(same: readonly BatchRecord[], unusable: HintsUnusable): NodeHints | undefined {
  let newest: NodeHints | undefined;
  for (const { record, parsed } of same) {
    if (!parsed.ok || parsed.message.kind !== 'node') continue;
    const hints = parsed.message.hints;
    if (hints === undefined || unusable(record, parsed.message)) return undefined;
    const at = timestampMillis(hints.observedAt) ?? 0;
    if (newest === undefined || at >= (timestampMillis(newest.observedAt) ?? 0)) newest = hints;
  }
  return newest;
}

/**
 * `message` as the one run of every `node` message for the same node in its batch (`batch`, the
 * batch's records parsed): with the `gateKeys` of them all (a key named by a skipped one is not lost
 * with it), and the newest hints of them all — or none when one of them carries none or only
 * unusable ones (`unusable`), so the node is read. Any other message is returned as it is.
 */
export function withBatchNodeFacts(
  message: WorkMessage,
  batch: Iterable<BatchRecord>,
  unusable: HintsUnusable,
): WorkMessage {
  if (message.kind !== 'node') return message;
  const same = [...batch].filter(
    ({ parsed }) =>
      parsed.ok && parsed.message.kind === 'node' && parsed.message.node.name === message.node.name,
  );
  const keys = new Set(message.gateKeys);
  for (const { parsed } of same)
    if (parsed.ok && parsed.message.kind === 'node')
      for (const key of parsed.message.gateKeys ?? []) keys.add(key);
  const { hints: _, ...withoutHints } = message;
  const hints = newestHints(same, unusable);
  const run: NodeMessage = { ...withoutHints, ...(hints !== undefined ? { hints } : {}) };
  return keys.size === 0 ? run : { ...run, gateKeys: [...keys].sort() };
}
