/**
 * Daemon pods the scheduler cannot place: a pod pinned to its node (node affinity on
 * `metadata.name`) that does not fit there stays Pending with `PodScheduled=False`, reason
 * `Unschedulable` and kube-scheduler's FitError message, and never moves elsewhere. These are what
 * the DaemonSet shows (its `PodsUnschedulable` condition, `FailedPlacement` events, the pending
 * count of `kubectl everynode rollout status`).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { NodeView } from './node-view.ts';

/** The reason kube-scheduler gives the PodScheduled condition of a pod that fits no node. */
export const UNSCHEDULABLE_REASON = 'Unschedulable';

/** A daemon pod stuck Pending on its node. */
export interface UnschedulablePod {
  readonly node: string;
  readonly pod: string;
  /** The scheduler's reasons, without counts: `Insufficient memory`, `Insufficient cpu, Insufficient memory`. */
  readonly reason: string;
  /** The scheduler's whole message. */
  readonly message: string;
}

/**
 * Reasons of the FitError histogram that are about the other nodes of the cluster, not the one a
 * daemon pod is pinned to (upstream NodeAffinity's PreFilter, and its Filter's wording).
 */
const ABOUT_OTHER_NODES = [
  "node(s) didn't satisfy plugin(s) [NodeAffinity]",
  "node(s) didn't match Pod's node affinity/selector",
];

/**
 * The reasons of kube-scheduler's FitError message ("0/3 nodes are available: 1 Insufficient
 * memory, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: …"): the histogram's
 * reasons without their counts, those about other nodes left out, joined by ", " — `Insufficient
 * memory`. The whole message when it is not a FitError's.
 */
export function schedulerReasons(message: string): string {
  const head = /^0\/\d+ nodes are available: /.exec(message);
  if (head === null) return message;
  const rest = message.slice(head[0].length);
  const preemption = rest.indexOf('. preemption: ');
  const histogram = preemption >= 0 ? rest.slice(0, preemption) : rest.replace(/\.$/, '');
  const reasons = histogram
    .split(', ')
    .map((entry) => entry.replace(/^\d+ /, ''))
    .filter((reason) => !ABOUT_OTHER_NODES.includes(reason));
  return reasons.length > 0 ? reasons.join(', ') : message;
}

/** The scheduler's message when `pod` is an unbound, live pod it found no room for; else undefined. */
export function unschedulableMessage(pod: Readonly<V1Pod>): string | undefined {
  if (pod.spec?.nodeName || pod.metadata?.deletionTimestamp !== undefined) return undefined;
  if (pod.status?.phase !== undefined && pod.status.phase !== 'Pending') return undefined;
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== UNSCHEDULABLE_REASON) return undefined;
  return scheduled.message ?? '';
}

/**
 * The DaemonSet's pods stuck unschedulable on the nodes that should run it, in node order (a node
 * that no longer should run the daemon is not waited for).
 */
export function unschedulablePodsOf(views: readonly NodeView[]): UnschedulablePod[] {
  const stuck: UnschedulablePod[] = [];
  for (const view of views) {
    if (!view.shouldRun) continue;
    for (const pod of view.pods) {
      const message = unschedulableMessage(pod);
      if (message === undefined) continue;
      const reason = schedulerReasons(message);
      stuck.push({ node: view.name, pod: pod.metadata?.name ?? '', reason, message });
    }
  }
  return stuck;
}
