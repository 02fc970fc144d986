/**
 * Which pod events reach their DaemonSet's step without waiting out a status window because they
 * can free a rolling-update slot (docs/design.md, 12. The status-refresh window; 15. The DaemonSet
 * step). Only the DaemonSet step deletes the next old pods, and it does so once a replaced node's
 * new pod is available again (or, when the rollout surges, once a node's old pod is gone); a
 * readiness change waiting out the status window in the `StatusCoalescer` and the router's
 * window-end refresh holds every freed slot for one to two seconds. Upstream's controller syncs the
 * DaemonSet on every pod update instead (`updatePod` → `enqueueDaemonSet`).
 *
 * Only events that can free a slot, and only while old pods wait for one: every other readiness
 * change is coalesced as before, so an initial rollout or a node join costs no extra step.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { rolloutExtensionsOf } from '../../core/extensions.ts';
import { gateToReopen } from '../../core/in-place/in-place-gate.ts';
import { allowsSurge, isRollingUpdate } from '../../core/rolling-update/budget.ts';
import { turnedReady } from '../cluster-view/decision-facets.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';

/** How a DaemonSet's rolling update stands, as the relay last saw the DaemonSet. */
type RolloutStanding = 'settled' | 'replacing' | 'surging';

/** Per DaemonSet object (one per watched version), its standing: judged once per version. */
const standings = new WeakMap<Readonly<DaemonSet>, RolloutStanding>();

/**
 * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` can free a
 * slot of its DaemonSet's rolling update while old pods wait for one, so the event must reach the
 * DaemonSet step within the router's short slot window rather than after a status window:
 * - the DaemonSet (as `context` knows it) uses RollingUpdate, is not paused, and its status shows
 *   old pods left to replace (`isReplacing`);
 * - the pod turned ready (`changes` names `ready` and it is ready now, not being deleted) or was
 *   seen ready at its creation (a replayed or resumed watch shows one): its node may count as
 *   available again, which frees room in `maxUnavailable`;
 * - or its in-place update settled behind its closed readiness gate (facet `inPlaceGate`,
 *   core/in-place/in-place-gate.ts): the step opens the gate, and the pod turns ready;
 * - or, when the rollout surges, the pod was removed: a node with an old and a new pod holds a
 *   surge slot until its old pod is gone. Without surge a removal frees nothing: its node is
 *   unavailable until the replacement is ready, whose own readiness change then counts.
 * A pod turned terminal frees nothing until its pair step deletes it; its DELETED is the event.
 * O(1): one map lookup and, once per DaemonSet version, a look at its spec and status.
 */
export function freesRolloutSlot(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  const owner = controllerOf(pod)?.uid;
  const ds = owner === undefined ? undefined : context?.daemonSet(owner);
  if (ds === undefined) return false;
  const standing = standingOf(ds);
  if (standing === 'settled') return false;
  if (type === 'DELETED') return standing === 'surging';
  // A settled in-place update's gate to open: the pod turns ready once the step opens it.
  return turnedReady(type, changes, pod) || (changes.includes('inPlaceGate') && gateToReopen(pod));
}

function standingOf(ds: Readonly<DaemonSet>): RolloutStanding {
  const known = standings.get(ds);
  if (known !== undefined) return known;
  const standing: RolloutStanding = !isReplacing(ds) ? 'settled' : allowsSurge(ds) ? 'surging' : 'replacing';
  standings.set(ds, standing);
  return standing;
}

/**
 * True when the rolling update of `ds` still has old pods to replace, by its status: a new spec not
 * yet counted (observedGeneration behind generation: the status says nothing of the new revision
 * yet), or more desired nodes whose oldest pod is of an old revision (currentNumberScheduled −
 * updatedNumberScheduled) than the partition keeps. False for OnDelete, a paused rollout and a
 * DaemonSet being deleted, which replace nothing, and for a DaemonSet no step counted yet (a new
 * one has no old revision). Nodes still without a pod (an initial rollout, a node join) count as
 * neither: their creates never wait for the budget.
 */
function isReplacing(ds: Readonly<DaemonSet>): boolean {
  if (ds.metadata?.deletionTimestamp || !isRollingUpdate(ds)) return false;
  const { paused, partition } = rolloutExtensionsOf(ds);
  if (paused) return false;
  const status = ds.status;
  const observed = status?.observedGeneration ?? 0;
  if (observed > 0 && observed < (ds.metadata?.generation ?? 0)) return true;
  const oldOnly = (status?.currentNumberScheduled ?? 0) - (status?.updatedNumberScheduled ?? 0);
  return oldOnly > partition;
}
