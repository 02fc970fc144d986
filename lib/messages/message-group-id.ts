/**
 * SQS FIFO `MessageGroupId` of work messages: the unit of serialization. SQS delivers the messages
 * of one group one at a time and in order, and different groups in parallel.
 */
import { createHash } from 'node:crypto';
import type { WorkMessage } from './work-message.ts';

/** The longest MessageGroupId / MessageDeduplicationId SQS accepts. */
export const MAX_FIFO_ID_LENGTH = 128;

/**
 * `id` if SQS accepts its length, else its first 63 characters, `~` and the SHA-256 of the whole
 * id in hex (exactly 128 characters): still readable in the console, and distinct for distinct ids
 * (Kubernetes names can be 253 characters, so `pair:<ns>/<ds>/<node>` can reach 765).
 */
export function fifoSafeId(id: string): string {
  if (id.length <= MAX_FIFO_ID_LENGTH) return id;
  const digest = createHash('sha256').update(id).digest('hex');
  return `${id.slice(0, MAX_FIFO_ID_LENGTH - digest.length - 1)}~${digest}`;
}

/**
 * The FIFO group of `message`; messages of one group never run concurrently.
 * - `pair` → `pair:<namespace>/<daemonset>/<node>`: one group per pair, so two invocations never
 *   plan the same node for the same DaemonSet at once, while different pairs run in parallel. The
 *   DaemonSet uid is left out on purpose: a DaemonSet deleted and re-created with the same name
 *   touches the same pods (adoption), so its pairs stay serialized with the old ones.
 * - `daemonset` → `ds:<namespace>/<name>`: the DaemonSet-wide steps (revisions, adoption, fan-out,
 *   rolling-update step, status) of one DaemonSet run one at a time, which is what keeps the rolling
 *   update within its budget.
 * - `node` → `node:<name>`.
 * Ids longer than SQS's 128 characters are shortened by {@link fifoSafeId}. Kubernetes names use
 * only `[a-z0-9.-]`, all allowed in a group id.
 */
export function messageGroupId(message: Readonly<WorkMessage>): string {
  switch (message.kind) {
    case 'pair': {
      const { namespace, name } = message.daemonSet;
      return fifoSafeId(`pair:${namespace}/${name}/${message.node.name}`);
    }
    case 'daemonset':
      return fifoSafeId(`ds:${message.daemonSet.namespace}/${message.daemonSet.name}`);
    case 'node':
      return fifoSafeId(`node:${message.node.name}`);
  }
}
