/**
 * The RollingUpdate budgets, ported from upstream pkg/controller/daemon/util daemonset_util.go
 * (SurgeCount, UnavailableCount, AllowsSurge), apimachinery intstr GetScaledValueFromIntOrPercent,
 * and daemon_controller.go updatedDesiredNodeCounts.
 */
import type { IntOrString } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';

/**
 * `value` scaled against `total` (upstream intstr.GetScaledValueFromIntOrPercent): an integer is
 * itself; `"N%"` is N percent of total, rounded up when `roundUp` (the DaemonSet controller always
 * rounds up) and down otherwise. Undefined when `value` is neither an integer nor a percent string.
 */
export function scaledValue(
  value: IntOrString | undefined,
  total: number,
  roundUp: boolean,
): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !/^-?\d+%$/.test(value)) return undefined;
  const percent = Number.parseInt(value.slice(0, -1), 10);
  const scaled = (percent * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** True when the DaemonSet uses the RollingUpdate strategy (the apps/v1 default when unset). */
export function isRollingUpdate(ds: Readonly<DaemonSet>): boolean {
  const type = ds.spec?.updateStrategy?.type;
  return type === undefined || type === 'RollingUpdate';
}

/**
 * How many extra pods the rollout may surge onto `numberToSchedule` nodes (upstream SurgeCount):
 * 0 for OnDelete and when maxSurge is unset (its default) or unparsable.
 */
export function surgeCount(ds: Readonly<DaemonSet>, numberToSchedule: number): number {
  if (!isRollingUpdate(ds)) return 0;
  const maxSurge = ds.spec?.updateStrategy?.rollingUpdate?.maxSurge;
  if (maxSurge === undefined) return 0;
  return Math.max(0, scaledValue(maxSurge, numberToSchedule, true) ?? 0);
}

/**
 * How many of `numberToSchedule` nodes may be unavailable during the rollout (upstream
 * UnavailableCount): 0 for OnDelete; an unset maxUnavailable counts as its apps/v1 default 1; an
 * unparsable one as 0 (upstream fails the sync; validation rejects such specs).
 */
export function unavailableCount(ds: Readonly<DaemonSet>, numberToSchedule: number): number {
  if (!isRollingUpdate(ds)) return 0;
  const maxUnavailable = ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  return Math.max(0, scaledValue(maxUnavailable, numberToSchedule, true) ?? 0);
}

/** True when the DaemonSet may run an old and a new pod on one node (upstream AllowsSurge). */
export function allowsSurge(ds: Readonly<DaemonSet>): boolean {
  return surgeCount(ds, 1) > 0;
}

/** The budgets of one rollout step. */
export interface RolloutBudget {
  maxSurge: number;
  maxUnavailable: number;
}

/**
 * The surge and unavailability budgets for `desiredNumberScheduled` nodes (upstream
 * updatedDesiredNodeCounts): when both come out 0 with nodes to schedule, maxUnavailable is 1 so a
 * rollout never stalls on an impossible configuration.
 */
export function rolloutBudget(ds: Readonly<DaemonSet>, desiredNumberScheduled: number): RolloutBudget {
  const maxSurge = surgeCount(ds, desiredNumberScheduled);
  let maxUnavailable = unavailableCount(ds, desiredNumberScheduled);
  if (desiredNumberScheduled > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}
