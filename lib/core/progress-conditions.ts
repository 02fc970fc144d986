/**
 * The `Available` and `Progressing` conditions everynode keeps on every valid DaemonSet it manages
 * (beyond upstream, whose DaemonSets carry none), so that `kubectl wait --for=condition=Available`
 * and `--for=condition=Progressing` work on a DaemonSet as they do on a Deployment.
 *
 * Available means every node that should run the daemon runs an available pod (of any revision):
 * for a DaemonSet, maxUnavailable is a rollout budget, not a service level, and a node without its
 * daemon is what a user waits for (and what a node readiness gate gates on).
 *
 * Progressing takes Deployment's reasons (pkg/controller/deployment/progress.go syncRolloutStatus,
 * deployment/util DeploymentComplete / DeploymentProgressing / DeploymentTimedOut). Without
 * progressDeadlineSeconds the conditions change only when their status or reason does, which
 * happens only together with a change of the counts, the generation or the paused setting, so they
 * add no status write of their own. With it, the Progressing condition's lastTransitionTime records
 * the last progress (DaemonSetCondition has no lastUpdateTime, and the API server prunes unknown
 * status fields of apps/v1): it is restamped whenever the rollout makes progress, and the deadline
 * runs from it.
 */
import type { V1DaemonSetCondition, V1DaemonSetStatus } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';
import { rolloutExtensionsOf } from './extensions.ts';
import { timestampMillis } from './pod-availability.ts';
import { isRollingUpdate } from './rolling-update/budget.ts';
import type { RolloutRecord } from './safe-rollout/rollout-record.ts';

/** Condition types and reasons everynode writes. */
export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';
export const REASON_NEW_REVISION_AVAILABLE = 'NewRevisionAvailable';
export const REASON_DAEMONSET_UPDATED = 'DaemonSetUpdated';
export const REASON_PROGRESS_DEADLINE_EXCEEDED = 'ProgressDeadlineExceeded';
export const REASON_PAUSED = 'DaemonSetPaused';
export const REASON_PODS_AVAILABLE = 'DaemonPodsAvailable';
export const REASON_PODS_UNAVAILABLE = 'DaemonPodsUnavailable';
/** everynode: the safe rollout's health rules halted it (Progressing False). */
export const REASON_ROLLOUT_HALTED = 'RolloutHalted';
/** everynode: a pause step of the safe rollout holds (Progressing Unknown). */
export const REASON_ROLLOUT_PAUSED = 'RolloutPaused';

/**
 * The status conditions for `next` (the freshly counted status of `ds`): the DaemonSet's other
 * condition types kept as they are, plus
 * - Available: True/DaemonPodsAvailable when numberAvailable ≥ desiredNumberScheduled (so with no
 *   desired node too), else False/DaemonPodsUnavailable; the message counts the nodes;
 * - Progressing: False/RolloutHalted when a safe rollout halted; True/NewRevisionAvailable when
 *   the rollout is complete (every desired node runs an available pod of the current revision, in
 *   the status of the current generation); Unknown/RolloutPaused while a pause step holds;
 *   Unknown/DaemonSetPaused while paused and incomplete; otherwise True/DaemonSetUpdated.
 *   With progressDeadlineSeconds also: DaemonSetUpdated is restamped when the counts moved towards
 *   completion or the generation changed, and turns False/ProgressDeadlineExceeded once the
 *   deadline passed without progress.
 * A condition whose status and reason do not change keeps its lastTransitionTime.
 */
export function progressConditions(
  ds: Readonly<DaemonSet>,
  next: Readonly<V1DaemonSetStatus>,
  now: Date,
): V1DaemonSetCondition[] {
  const previous = ds.status?.conditions ?? [];
  const others = previous.filter((c) => c.type !== PROGRESSING && c.type !== AVAILABLE);
  return [...others, progressingCondition(ds, next, now), availableCondition(ds, next, now)];
}

/** Every node that should run the daemon runs an available pod of any revision. */
function availableCondition(
  ds: Readonly<DaemonSet>,
  next: Readonly<V1DaemonSetStatus>,
  now: Date,
): V1DaemonSetCondition {
  const desired = next.desiredNumberScheduled;
  const available = next.numberAvailable ?? 0;
  const ok = available >= desired;
  return condition(
    ds,
    now,
    AVAILABLE,
    ok ? 'True' : 'False',
    ok ? REASON_PODS_AVAILABLE : REASON_PODS_UNAVAILABLE,
    `${available} of ${desired} nodes run an available daemon pod.`,
  );
}

function progressingCondition(
  ds: Readonly<DaemonSet>,
  next: Readonly<V1DaemonSetStatus>,
  now: Date,
): V1DaemonSetCondition {
  const name = ds.metadata?.name ?? '';
  const rollout = (next as { rollout?: RolloutRecord }).rollout;
  if (rollout?.phase === 'Halted') {
    const message = `DaemonSet "${name}" rollout of revision ${rollout.revision} halted: ${rollout.haltMessage ?? rollout.haltReason ?? ''}`;
    return condition(ds, now, PROGRESSING, 'False', REASON_ROLLOUT_HALTED, message);
  }
  if (isComplete(ds, next)) {
    const message = `DaemonSet "${name}" has successfully progressed.`;
    return condition(ds, now, PROGRESSING, 'True', REASON_NEW_REVISION_AVAILABLE, message);
  }
  if (rollout?.phase === 'Paused') {
    const message = `DaemonSet "${name}" rollout is paused at step ${(rollout.step ?? 0) + 1}.`;
    return condition(ds, now, PROGRESSING, 'Unknown', REASON_ROLLOUT_PAUSED, message);
  }
  if (isRollingUpdate(ds) && rolloutExtensionsOf(ds).paused) {
    const message = `DaemonSet "${name}" rollout is paused.`;
    return condition(ds, now, PROGRESSING, 'Unknown', REASON_PAUSED, message);
  }
  const { progressDeadlineSeconds } = rolloutExtensionsOf(ds);
  if (progressDeadlineSeconds !== undefined) return rolloutProgress(ds, next, now, progressDeadlineSeconds);
  const message = `DaemonSet "${name}" is progressing.`;
  return condition(ds, now, PROGRESSING, 'True', REASON_DAEMONSET_UPDATED, message);
}

/** An incomplete, unpaused rollout with a deadline: restamped on progress, timed out after the deadline. */
function rolloutProgress(
  ds: Readonly<DaemonSet>,
  next: Readonly<V1DaemonSetStatus>,
  now: Date,
  deadlineSeconds: number,
): V1DaemonSetCondition {
  const name = ds.metadata?.name ?? '';
  const prev = findCondition(ds, PROGRESSING);
  if (prev === undefined || prev.reason === REASON_PAUSED || madeProgress(ds, next)) {
    const message = `DaemonSet "${name}" is progressing.`;
    return {
      type: PROGRESSING,
      status: 'True',
      reason: REASON_DAEMONSET_UPDATED,
      message,
      lastTransitionTime: now,
    };
  }
  // Deployment's DeploymentTimedOut never fires for a completed rollout nor twice.
  if (prev.reason === REASON_NEW_REVISION_AVAILABLE || prev.status !== 'True') return prev;
  const since = timestampMillis(prev.lastTransitionTime) ?? now.getTime();
  // DeploymentTimedOut: last progress + deadline strictly before now.
  if (since + deadlineSeconds * 1000 < now.getTime()) {
    const message = `DaemonSet "${name}" has timed out progressing.`;
    return condition(ds, now, PROGRESSING, 'False', REASON_PROGRESS_DEADLINE_EXCEEDED, message);
  }
  return prev;
}

/**
 * Every desired node runs an available pod of the current revision, counted for the current
 * generation (Deployment's DeploymentComplete).
 */
function isComplete(ds: Readonly<DaemonSet>, next: Readonly<V1DaemonSetStatus>): boolean {
  const desired = next.desiredNumberScheduled;
  return (
    (next.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0) &&
    next.updatedNumberScheduled === desired &&
    next.numberAvailable === desired &&
    next.currentNumberScheduled === desired
  );
}

/** The counts moved towards completion since the stored status, or a new generation is being rolled. */
function madeProgress(ds: Readonly<DaemonSet>, next: Readonly<V1DaemonSetStatus>): boolean {
  const prev = ds.status;
  if (prev === undefined || (prev.observedGeneration ?? 0) !== (next.observedGeneration ?? 0)) return true;
  return (
    (next.updatedNumberScheduled ?? 0) > (prev.updatedNumberScheduled ?? 0) ||
    (next.numberAvailable ?? 0) > (prev.numberAvailable ?? 0) ||
    next.currentNumberScheduled > prev.currentNumberScheduled ||
    next.numberReady > prev.numberReady
  );
}

/**
 * Seconds until the Progressing condition of `status` would time out (at least 1), or undefined
 * when it cannot (no deadline, complete, paused, already timed out).
 */
export function secondsUntilProgressDeadline(
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
  now: Date,
): number | undefined {
  const { progressDeadlineSeconds } = rolloutExtensionsOf(ds);
  const progressing = status.conditions?.find((c) => c.type === PROGRESSING);
  if (progressDeadlineSeconds === undefined || progressing?.reason !== REASON_DAEMONSET_UPDATED)
    return undefined;
  const since = timestampMillis(progressing.lastTransitionTime) ?? now.getTime();
  const remainingMillis = since + progressDeadlineSeconds * 1000 - now.getTime();
  return Math.max(1, Math.floor(remainingMillis / 1000) + 1);
}

function findCondition(ds: Readonly<DaemonSet>, type: string): V1DaemonSetCondition | undefined {
  return ds.status?.conditions?.find((c) => c.type === type);
}

/** A condition, keeping the previous lastTransitionTime when its status and reason are unchanged. */
function condition(
  ds: Readonly<DaemonSet>,
  now: Date,
  type: string,
  status: string,
  reason: string,
  message: string,
): V1DaemonSetCondition {
  const prev = findCondition(ds, type);
  const unchanged = prev !== undefined && prev.status === status && prev.reason === reason;
  const lastTransitionTime =
    unchanged && prev.lastTransitionTime !== undefined ? prev.lastTransitionTime : now;
  return { type, status, reason, message, lastTransitionTime };
}
