/**
 * When a pair must be looked at again although no event may announce it: a daemon pod that is
 * terminating blocks its replacement (upstream podsShouldBeOnNode creates nothing while one
 * exists), and its end is signalled only by a pod DELETED watch event, which a lost or delayed
 * trigger could miss. So the pair is requeued for the end of the pod's grace period.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Action } from './action.ts';
import { isControlledBy } from './controller-ref.ts';
import type { DaemonSet } from './daemon-set.ts';
import { nodeShouldRunDaemonPod } from './placement.ts';
import { isPodTerminal, isPodTerminating, timestampMillis } from './pod-availability.ts';

/** Slack after a pod's deletionTimestamp, for the kubelet to finish and the API server to remove it. */
export const TERMINATION_SLACK_SECONDS = 1;
/** The wait when a pod is past its deletionTimestamp and still there (a finalizer, a slow kubelet). */
export const OVERDUE_TERMINATION_SECONDS = 5;

/** What the wait depends on. */
export interface TerminationWaitState {
  readonly ds: Readonly<DaemonSet>;
  readonly node: Readonly<V1Node> | undefined;
  readonly pods: readonly V1Pod[];
  readonly actions: readonly Action[];
  readonly now: Date;
  /** Requeues of this pair so far, to back off from a pod that never goes away. */
  readonly attempt: number;
  /** The node readiness gate keys the DaemonSet's pods tolerate (known-gate-keys.ts). */
  readonly gateKeys?: readonly string[];
}

/**
 * Seconds until the pair should be planned again because a live pod of the DaemonSet is
 * terminating on a node that should run one and the plan creates nothing; undefined when no wait
 * is needed. The wait ends at the latest deletionTimestamp plus {@link TERMINATION_SLACK_SECONDS};
 * a pod already overdue is looked at after {@link OVERDUE_TERMINATION_SECONDS}, doubling per
 * attempt up to 15 minutes.
 */
export function terminationWaitSeconds(state: Readonly<TerminationWaitState>): number | undefined {
  if (state.node === undefined || state.actions.some((action) => action.type === 'create')) return undefined;
  if (!nodeShouldRunDaemonPod(state.node, state.ds, state.gateKeys).shouldRun) return undefined;
  const ends = state.pods
    .filter((pod) => isControlledBy(pod, state.ds) && isPodTerminating(pod) && !isPodTerminal(pod))
    .map((pod) => timestampMillis(pod.metadata?.deletionTimestamp) ?? state.now.getTime());
  if (ends.length === 0) return undefined;
  const remaining = Math.ceil((Math.max(...ends) - state.now.getTime()) / 1000);
  if (remaining > 0) return remaining + TERMINATION_SLACK_SECONDS;
  return Math.min(900, OVERDUE_TERMINATION_SECONDS * 2 ** Math.min(state.attempt, 8));
}

/**
 * Seconds until the first node of `views` whose only pods of the DaemonSet are terminating (and
 * that should run one) is expected to be free: the earliest future deletionTimestamp plus
 * {@link TERMINATION_SLACK_SECONDS}. Pods already overdue are left to their pair's own requeue and
 * to the pod DELETED event, so a pod stuck terminating does not keep the DaemonSet step busy.
 */
export function earliestNodeFreeSeconds(
  ds: Readonly<DaemonSet>,
  views: readonly Readonly<{ shouldRun: boolean; pods: readonly V1Pod[] }>[],
  now: Date,
): number | undefined {
  let earliest: number | undefined;
  for (const view of views) {
    const pods = view.pods.filter((pod) => isControlledBy(pod, ds));
    if (!view.shouldRun || pods.length === 0 || pods.some((pod) => !isPodTerminating(pod))) continue;
    for (const pod of pods) {
      const end = timestampMillis(pod.metadata?.deletionTimestamp);
      if (end === undefined || end <= now.getTime() || isPodTerminal(pod)) continue;
      earliest = Math.min(earliest ?? end, end);
    }
  }
  if (earliest === undefined) return undefined;
  return Math.ceil((earliest - now.getTime()) / 1000) + TERMINATION_SLACK_SECONDS;
}
