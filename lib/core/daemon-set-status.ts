/**
 * The DaemonSet status: upstream pkg/controller/daemon/daemon_controller.go updateDaemonSetStatus
 * (and storeDaemonSetStatus), plus everynode's Available/Progressing conditions on every DaemonSet
 * (progress-conditions.ts).
 */
import type { V1DaemonSetStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import type { RequeueAction } from './action.ts';
import type { DaemonSet } from './daemon-set.ts';
import { type NodeView, nodeViewsFor } from './node-view.ts';
import { isPodAvailable, isPodReady, oldestFirst } from './pod-availability.ts';
import { isPodCurrent } from './pod-revision.ts';
import { progressConditions, secondsUntilProgressDeadline } from './progress-conditions.ts';
import type { RolloutRecord } from './safe-rollout/rollout-record.ts';

/**
 * The status of `ds` given every node and the DaemonSet's pods grouped by target node name:
 * desiredNumberScheduled (nodes that should run it), currentNumberScheduled (of those, nodes with a
 * pod), numberMisscheduled (nodes with a pod that should not run it), and — judging only the
 * oldest pod on each desired node — numberReady, numberAvailable (ready for minReadySeconds),
 * updatedNumberScheduled (current: of the current revision and of the size its node calls for,
 * pod-revision.ts isPodCurrent), numberUnavailable = desired − available;
 * observedGeneration = the DaemonSet's generation; collisionCount kept; conditions as
 * progressConditions (Available and Progressing, other types kept). Pods on nodes not in `nodes`
 * do not count (upstream iterates the node list).
 */
export function computeDaemonSetStatus(
  ds: Readonly<DaemonSet>,
  nodes: readonly Readonly<V1Node>[],
  podsByNode: Readonly<Record<string, readonly V1Pod[]>>,
  currentHash: string,
  now: Date,
): V1DaemonSetStatus {
  const views = nodeViewsFor(ds, nodes, Object.values(podsByNode).flat());
  return daemonSetStatusFromViews(ds, views, currentHash, now);
}

/** A DaemonSet status with the safe rollout's record (`status.rollout` on everynode.dev/v1). */
export type StatusWithRollout = V1DaemonSetStatus & { rollout?: RolloutRecord };

/**
 * {@link computeDaemonSetStatus} for callers that already hold the node views, with the safe
 * rollout's record when the DaemonSet has one (its phase shapes the Progressing condition).
 */
export function daemonSetStatusFromViews(
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  currentHash: string,
  now: Date,
  rollout?: RolloutRecord,
): StatusWithRollout {
  const counts = countPods(ds, views, currentHash, now);
  const status: StatusWithRollout = {
    ...counts,
    numberUnavailable: counts.desiredNumberScheduled - counts.numberAvailable,
    observedGeneration: ds.metadata?.generation ?? 0,
  };
  if (ds.status?.collisionCount !== undefined) status.collisionCount = ds.status.collisionCount;
  if (rollout !== undefined) status.rollout = rollout;
  status.conditions = progressConditions(ds, status, now);
  return status;
}

interface PodCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  numberAvailable: number;
  updatedNumberScheduled: number;
}

function countPods(ds: Readonly<DaemonSet>, views: readonly NodeView[], hash: string, now: Date): PodCounts {
  const counts: PodCounts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    numberAvailable: 0,
    updatedNumberScheduled: 0,
  };
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  for (const view of views) {
    if (view.node === undefined) continue;
    const oldest = oldestFirst(view.pods)[0];
    if (!view.shouldRun) {
      if (oldest) counts.numberMisscheduled++;
      continue;
    }
    counts.desiredNumberScheduled++;
    if (!oldest) continue;
    counts.currentNumberScheduled++;
    if (isPodReady(oldest)) {
      counts.numberReady++;
      if (isPodAvailable(oldest, minReadySeconds, now)) counts.numberAvailable++;
    }
    if (isPodCurrent(oldest, hash, ds, view.node)) counts.updatedNumberScheduled++;
  }
  return counts;
}

/**
 * True when `next` differs from the DaemonSet's stored status in anything upstream
 * storeDaemonSetStatus compares (the counters and observedGeneration) or in its conditions, i.e.
 * when a status write is needed.
 */
export function statusChanged(ds: Readonly<DaemonSet>, next: Readonly<V1DaemonSetStatus>): boolean {
  const prev = ds.status;
  if (prev === undefined) return true;
  const keys = [
    'desiredNumberScheduled',
    'currentNumberScheduled',
    'numberMisscheduled',
    'numberReady',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
    'observedGeneration',
  ] as const;
  if (keys.some((key) => (prev[key] ?? 0) !== (next[key] ?? 0))) return true;
  return JSON.stringify(prev.conditions ?? []) !== JSON.stringify(next.conditions ?? []);
}

/**
 * When the status must be computed again although nothing changes in the cluster: after
 * minReadySeconds while some ready pod is not yet available (upstream resyncs after minReadySeconds
 * when numberReady != numberAvailable), or when the progress deadline passes. Undefined when never.
 */
export function statusRequeue(
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
  now: Date,
): RequeueAction | undefined {
  const waits: number[] = [];
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  if (minReadySeconds > 0 && status.numberReady !== (status.numberAvailable ?? 0))
    waits.push(minReadySeconds);
  const deadline = secondsUntilProgressDeadline(ds, status, now);
  if (deadline !== undefined) waits.push(deadline);
  if (waits.length === 0) return undefined;
  return { type: 'requeue', afterSeconds: Math.min(...waits), reason: 'status depends on time passing' };
}
