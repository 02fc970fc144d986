/**
 * What the DaemonSet status says about where its pods land, besides upstream's counts: the
 * `PodsUnschedulable` condition while daemon pods wait for room on their node, and on
 * everynode.dev/v1 `status.nodeSizing`, the range of sizes the node-sizing rules give.
 */
import type { V1DaemonSetStatus } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';
import { nodeSizingText } from './node-sizing/sizing-status.ts';
import type { NodeView } from './node-view.ts';
import { withUnschedulableCondition } from './unschedulable-condition.ts';
import { unschedulablePodsOf } from './unschedulable-pods.ts';

/** A DaemonSet status with the size range (`status.nodeSizing` on everynode.dev/v1). */
export type StatusWithSizing = V1DaemonSetStatus & { nodeSizing?: string };

/** The size range a status holds, or undefined. */
export function nodeSizingStatusOf(status: Readonly<V1DaemonSetStatus> | undefined): string | undefined {
  return (status as StatusWithSizing | undefined)?.nodeSizing;
}

/**
 * `status` (counted from `views`) with the `PodsUnschedulable` condition as the views' pods call
 * for and the size range of `ds`'s rules over the nodes that should run it (none without rules).
 */
export function withPlacementStatus(
  status: V1DaemonSetStatus,
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  now: Date,
): StatusWithSizing {
  const next: StatusWithSizing = withUnschedulableCondition(
    status,
    ds.status,
    unschedulablePodsOf(views),
    now,
  );
  const sizing = nodeSizingText(ds, views);
  if (sizing === undefined) delete next.nodeSizing;
  else next.nodeSizing = sizing;
  return next;
}
