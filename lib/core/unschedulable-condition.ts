/**
 * The `PodsUnschedulable` condition: present (True, reason `Unschedulable`) while daemon pods of
 * the DaemonSet are stuck Pending because the scheduler finds no room on their node, its message
 * the count and the reasons by node (`1 pending: Insufficient memory on node-a`); gone once none
 * is. A condition type of both kinds' status (apps/v1 keeps any condition type), so `kubectl
 * everynode rollout status` reads it on either, and a status write brings it to a watcher.
 */
import type { V1DaemonSetCondition, V1DaemonSetStatus } from '@kubernetes/client-node';
import { UNSCHEDULABLE_REASON, type UnschedulablePod } from './unschedulable-pods.ts';

/** The condition type. */
export const PODS_UNSCHEDULABLE_CONDITION = 'PodsUnschedulable';

/** Nodes named per reason in the message; the rest are counted. */
export const NODES_NAMED = 3;

/**
 * `2 pending: Insufficient memory on node-a, node-b; Insufficient cpu on node-c` — reasons in the
 * order their first node comes, at most {@link NODES_NAMED} nodes named each (`and 4 more`).
 */
export function pendingText(stuck: readonly UnschedulablePod[]): string {
  const byReason = new Map<string, string[]>();
  for (const { reason, node } of stuck) byReason.set(reason, [...(byReason.get(reason) ?? []), node]);
  const parts = [...byReason].map(([reason, nodes]) => {
    const named = nodes.slice(0, NODES_NAMED).join(', ');
    const more = nodes.length > NODES_NAMED ? ` and ${nodes.length - NODES_NAMED} more` : '';
    return `${reason} on ${named}${more}`;
  });
  return `${stuck.length} pending: ${parts.join('; ')}`;
}

/**
 * `status` with the condition as `stuck` calls for: set (its lastTransitionTime kept from
 * `stored` while it stays True) when some pod is stuck, removed otherwise.
 */
export function withUnschedulableCondition(
  status: V1DaemonSetStatus,
  stored: Readonly<V1DaemonSetStatus> | undefined,
  stuck: readonly UnschedulablePod[],
  now: Date,
): V1DaemonSetStatus {
  const others = (status.conditions ?? []).filter((c) => c.type !== PODS_UNSCHEDULABLE_CONDITION);
  if (stuck.length === 0) {
    const { conditions: _, ...rest } = status;
    return others.length > 0 ? { ...rest, conditions: others } : rest;
  }
  const old = stored?.conditions?.find((c) => c.type === PODS_UNSCHEDULABLE_CONDITION && c.status === 'True');
  const condition: V1DaemonSetCondition = {
    type: PODS_UNSCHEDULABLE_CONDITION,
    status: 'True',
    reason: UNSCHEDULABLE_REASON,
    message: pendingText(stuck),
    lastTransitionTime: old?.lastTransitionTime ?? now,
  };
  return { ...status, conditions: [...others, condition] };
}
