/**
 * Which pod events reach their DaemonSet's step at once because they complete it (docs/design.md,
 * 12. The status-refresh window): the last of the DaemonSet's pods turned ready while its status
 * still counts some not ready. Coalesced like any readiness change, that event would wait out the
 * rest of its status window (one second on average) before the status says the rollout is done:
 * `kubectl rollout status`, the Available condition and anything waiting on them would wait too.
 * It happens once per DaemonSet each time all its pods become ready, so it costs one step there.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { turnedReady } from '../cluster-view/decision-facets.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';

/**
 * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` leaves every
 * pod of its managed DaemonSet ready, as `context` (already fed this event) knows them, and the
 * DaemonSet's status as last seen counts fewer ready nodes than desired: the pod turned ready (or
 * was seen ready at its creation) and no other pod of the DaemonSet is not ready.
 */
export function settlesDaemonSet(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  if (context === undefined || !turnedReady(type, changes, pod)) return false;
  const owner = controllerOf(pod)?.uid;
  const ds = owner === undefined ? undefined : context.daemonSet(owner);
  if (owner === undefined || ds === undefined || context.unreadyPodsOf(owner) > 0) return false;
  const status = ds.status;
  return (status?.numberReady ?? 0) < (status?.desiredNumberScheduled ?? 0);
}
