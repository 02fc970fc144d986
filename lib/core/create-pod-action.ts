/**
 * The create action for a daemon pod, shared by the pair plan and the surge step of the rollout.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { CreateAction } from './action.ts';
import { daemonPodFor, daemonPodName } from './daemon-pod.ts';
import type { DaemonSet } from './daemon-set.ts';
import { createsGatedPods, withInPlaceGate } from './in-place/in-place-gate.ts';

/**
 * A create of `ds`'s pod for `nodeName` at revision `currentHash`, under the first attempt number
 * whose name none of `podsOnNode` holds: a replacement never collides with the pod it replaces
 * (even one still terminating), and planners that see the same state pick the same name, so a
 * duplicate create fails with 409 instead of making a second pod. The pod tolerates the node
 * readiness gate keys `gateKeys` (see `DaemonPodOptions.gateKeys`); a DaemonSet updating in place
 * gives it the in-place readiness gate (`in-place/in-place-gate.ts`).
 */
export function createPodAction(
  ds: Readonly<DaemonSet>,
  nodeName: string,
  currentHash: string,
  podsOnNode: readonly Readonly<V1Pod>[],
  annotations: Readonly<Record<string, string>>,
  reason: string,
  gateKeys: readonly string[] = [],
): CreateAction {
  const taken = new Set(podsOnNode.map((pod) => pod.metadata?.name));
  const dsName = ds.metadata?.name ?? '';
  let attempt = 0;
  while (taken.has(daemonPodName(dsName, nodeName, currentHash, attempt))) attempt++;
  const pod = daemonPodFor(ds, nodeName, currentHash, { attempt, annotations: { ...annotations }, gateKeys });
  // A DaemonSet that updates in place gates its pods' readiness on the update (in-place-gate.ts).
  return { type: 'create', node: nodeName, pod: createsGatedPods(ds) ? withInPlaceGate(pod) : pod, reason };
}
