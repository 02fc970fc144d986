/**
 * What one (DaemonSet, node) pair needs: upstream pkg/controller/daemon/daemon_controller.go
 * podsShouldBeOnNode (plus getUnscheduledPodsWithoutNode for vanished nodes), made stateless.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { type Action, deletePodAction } from './action.ts';
import { isControlledBy } from './controller-ref.ts';
import { createPodAction } from './create-pod-action.ts';
import { targetNodeName } from './daemon-pod.ts';
import type { DaemonSet } from './daemon-set.ts';
import { isEmptyLabelSelector } from './label-selector.ts';
import { sizedCreate } from './node-sizing/sized-create.ts';
import { planRunningPods } from './pair-plan-running.ts';
import { nodeShouldRunDaemonPod } from './placement.ts';
import { isDeletedTerminalPod, isPodTerminating } from './pod-availability.ts';

/** Everything the pair plan looks at; read fresh for every plan. */
export interface PairState {
  ds: Readonly<DaemonSet>;
  /** The node, or undefined when it no longer exists. */
  node: Readonly<V1Node> | undefined;
  /**
   * The DaemonSet's pods targeting the node (targetNodeName), terminating ones included.
   * Pods not controlled by the DaemonSet may be passed; they are never touched.
   */
  pods: readonly V1Pod[];
  /** The controller-revision-hash of the current revision. */
  currentHash: string;
  now: Date;
  /** The node's name; needed only when `node` is undefined and no pod names it. */
  nodeName?: string;
  /**
   * The node readiness gate keys the DaemonSet's pods tolerate (default none): placement judges the
   * node as such a pod sees it, and the pods created carry those tolerations (docs/design.md,
   * 26. Node readiness gates).
   */
  gateKeys?: readonly string[];
}

/**
 * The actions that make the pair right, following upstream podsShouldBeOnNode:
 * - DaemonSet being deleted, or selecting everything (upstream SelectingAll) → nothing;
 * - placement (nodeShouldRunDaemonPod) with the gate keys of `state.gateKeys` tolerated;
 * - node gone → delete every non-terminating pod;
 * - shouldRun and no pod → create one, its containers sized for the node (node-sizing/);
 * - shouldContinueRunning → Failed pods deleted and replaced after the failure backoff (a requeue
 *   while waiting), Succeeded pods deleted and replaced, more than one running pod → keep the
 *   oldest (with surge: the oldest of each revision, the old one deleted once the new one is
 *   available or the old one is not ready), terminating pods waited for;
 * - !shouldContinueRunning → delete every non-terminating pod.
 * Pods the DaemonSet does not control, and terminal pods already being deleted (upstream
 * getNodesToDaemonPods), are ignored. Deletes carry uid and resourceVersion preconditions; those
 * made because of the node (gone, or !shouldContinueRunning) are marked `becauseOfNode`.
 */
export function planPair(state: Readonly<PairState>): Action[] {
  const { ds, node } = state;
  if (ds.metadata?.deletionTimestamp || isEmptyLabelSelector(ds.spec?.selector ?? {})) return [];
  const owned = state.pods.filter((pod) => isControlledBy(pod, ds));
  const pods = owned.filter((pod) => !isDeletedTerminalPod(pod));
  const nodeName = node?.metadata?.name ?? state.nodeName ?? firstTarget(owned) ?? '';
  if (node === undefined) return deleteAll(pods, nodeName, 'node no longer exists');
  const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds, state.gateKeys);
  if (shouldRun && pods.length === 0) {
    return [createAction(state, nodeName, {}, 'daemon pod missing on node')];
  }
  if (shouldContinueRunning) {
    const plan = planRunningPods({ ...state, pods, nodeName, shouldRun });
    return [
      ...plan.actions,
      ...(plan.replace ? [createAction(state, nodeName, plan.replace.annotations, plan.replace.reason)] : []),
    ];
  }
  if (!shouldContinueRunning && pods.length > 0) {
    return deleteAll(pods, nodeName, 'node no longer runs this DaemonSet (shouldContinueRunning=false)');
  }
  return [];
}

/** Deletes of every non-terminating pod, because of the node (see `becauseOfNode`). */
function deleteAll(pods: readonly V1Pod[], nodeName: string, reason: string): Action[] {
  return pods
    .filter((pod) => !isPodTerminating(pod))
    .map((pod) => ({ ...deletePodAction(pod, nodeName, reason), becauseOfNode: true as const }));
}

function firstTarget(pods: readonly V1Pod[]): string | undefined {
  for (const pod of pods) {
    const target = targetNodeName(pod);
    if (target) return target;
  }
  return undefined;
}

function createAction(
  state: Readonly<PairState>,
  nodeName: string,
  annotations: Record<string, string>,
  reason: string,
): Action {
  const { ds, currentHash, pods, gateKeys } = state;
  const create = createPodAction(ds, nodeName, currentHash, pods, annotations, reason, gateKeys);
  return sizedCreate(create, ds, state.node);
}
