/**
 * A resync's re-check of node readiness gates (docs/design.md, 26. Node readiness gates): the
 * DaemonSet step of a resync sends a `node` message for each node whose gate its full view says may
 * be wrong (`nodesToRecheckGates`), so a gating pod that became ready, or stopped being available,
 * while no relay watched still moves its node's gate. Only on a resync: otherwise the relay's
 * events bring every such change to the node step at once.
 */
import type { DaemonSet } from '../../core/daemon-set.ts';
import { nodesToRecheckGates } from '../../core/node-gates/gate-recheck.ts';
import type { NodeView } from '../../core/node-view.ts';
import type { MessageCause } from '../../messages/message-cause.ts';
import type { OutgoingWork } from '../../queue/work-senders.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';

/**
 * Sends the node steps of a resync's gate re-check; resolves to how many. Each message carries the
 * resync's cause, so the gating DaemonSets of one resync naming the same node send it once (FIFO
 * de-duplication), and the node step decides with every gating DaemonSet, reading the node afresh.
 */
export async function sendGateRechecks(
  deps: DepsPart<'workQueue', never>,
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  cause: MessageCause,
  now: Date,
): Promise<number> {
  if (cause.type !== 'resync') return 0;
  const names = nodesToRecheckGates(ds, views, now);
  if (names.length === 0) return 0;
  await deps.ports.workQueue.send(
    names.map((name): OutgoingWork => ({ message: { v: 1, kind: 'node', cause, node: { name } } })),
  );
  return names.length;
}
