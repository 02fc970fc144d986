/**
 * The nodes whose readiness gate a DaemonSet's full view says may be wrong (docs/design.md,
 * 26. Node readiness gates): the ones a resync sends to their `node` step. Gate decisions are
 * event-driven — a gating pod's readiness change reaches its node's step at once — so a change
 * that happened while no relay watched (everynode down, a watch window lost) would leave a node
 * gated until something else touched it. The DaemonSet step of a resync holds every node and every
 * pod of the DaemonSet, so it can tell which nodes disagree with it, and only those cost a step.
 */
import type { DaemonSet } from '../daemon-set.ts';
import type { NodeView } from '../node-view.ts';
import { isPodAvailable, isPodTerminating } from '../pod-availability.ts';
import { isGateTaint, nodeReadinessOf } from './gate-declaration.ts';

/**
 * The names of the nodes of `views` (the DaemonSet's node views, placed ignoring its own gate
 * taint) whose gate state disagrees with `ds`'s pods there:
 * - the node carries the gate taint and `ds` has an available pod there, or should not run there
 *   at all (the node may be releasable: the node step decides with every gating DaemonSet);
 * - `Continuous` only: the node should run `ds`, carries no gate taint and has no available pod of
 *   `ds` (the taint may be due back).
 * None for a DaemonSet without a valid gate. A node that agrees costs nothing.
 */
export function nodesToRecheckGates(
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  now: Date,
): string[] {
  const gate = nodeReadinessOf(ds);
  if (gate === undefined) return [];
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  return views.flatMap((view) => {
    if (view.node === undefined) return [];
    const tainted = (view.node.spec?.taints ?? []).some((t) => isGateTaint(t, gate.taintKey));
    const available = view.pods.some(
      (pod) => !isPodTerminating(pod) && isPodAvailable(pod, minReadySeconds, now),
    );
    if (tainted) return available || !view.shouldRun ? [view.name] : [];
    return gate.mode === 'Continuous' && view.shouldRun && !available ? [view.name] : [];
  });
}
