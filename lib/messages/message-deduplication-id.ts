/**
 * SQS FIFO `MessageDeduplicationId` of work messages: SQS drops a message whose id it has seen in
 * the last five minutes, whatever its group.
 */
import { createHash } from 'node:crypto';
import type { WorkMessage } from './work-message.ts';

/** JSON with object keys sorted, so equal content always gives equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What the message is about: its kind and target, without cause or hints. */
function targetOf(message: Readonly<WorkMessage>): unknown {
  switch (message.kind) {
    case 'pair':
      return { kind: 'pair', daemonSet: message.daemonSet, node: message.node.name };
    case 'daemonset':
      return { kind: 'daemonset', daemonSet: message.daemonSet };
    case 'node':
      return { kind: 'node', node: message.node.name };
  }
}

/**
 * The FIFO de-duplication id of `message`: `<kind>:<cause type>:<sha256 hex>` of its target
 * (kind, DaemonSet namespace/name/uid, node) and its whole cause. So:
 * - the same watch event (same object version: kind, event, resourceVersion) turned into the same
 *   work twice within five minutes — overlapping relay runs, a resent batch, a retried router — is
 *   delivered once;
 * - a later event of the same object has a new resourceVersion, so it is new work;
 * - a relay timer's trigger carries its timer, so it is never dropped as a duplicate of the watch
 *   event of the same object version;
 * - an EC2 event is identified by its EventBridge id; a resync by its schedule tick (`at`);
 * - a replay carries the replay name and replayed event id, so it is never dropped as a duplicate
 *   of the original, nor of another replay;
 * - a requeue carries `requestedAt`, so every requeue is distinct work, even a second wait for the
 *   same reason within five minutes.
 * Hints and `managedKind` are left out: two fan-outs of the same pair for the same cause are the
 * same work whatever the DaemonSet step saw. At most 82 characters, all allowed by SQS.
 */
export function messageDeduplicationId(message: Readonly<WorkMessage>): string {
  const digest = createHash('sha256')
    .update(canonicalJson({ target: targetOf(message), cause: message.cause }))
    .digest('hex');
  return `${message.kind}:${message.cause.type}:${digest}`;
}
