/**
 * The safe rollout's record where the DaemonSet keeps it, and its events (docs/design.md, 30.
 * Rollouts that stop themselves). On everynode.dev/v1 the record is `status.rollout`, written with
 * the rest of the status; on apps/v1, whose status the API server prunes to its schema, it is the
 * `everynode.dev/rollout-status` annotation, patched after the status is written (uid
 * precondition: the DaemonSet steps of one DaemonSet run one at a time, and each writes the record
 * it decided from the cluster's state).
 */
import type { V1DaemonSetStatus } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import {
  ROLLOUT_STATUS_ANNOTATION,
  type RolloutRecord,
  rolloutRecordOf,
} from '../../core/safe-rollout/rollout-record.ts';
import type { RolloutEvent } from '../../core/safe-rollout/rollout-types.ts';
import { NotFoundError } from '../../kube/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type ReportKey, type StepReport } from '../effects/step-report.ts';

/** `status` as the API server keeps it for the managed kind: apps/v1 has no `rollout`. */
export function statusForKind(deps: ReconcileDeps, status: Readonly<V1DaemonSetStatus>): V1DaemonSetStatus {
  if (deps.ports.kube.managedKind !== 'apps/v1') return { ...status };
  const { rollout: _, ...rest } = status as V1DaemonSetStatus & { rollout?: unknown };
  return rest;
}

const same = (a: RolloutRecord | undefined, b: RolloutRecord | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * On apps/v1, writes `record` to the annotation when it differs from the DaemonSet's (removes it
 * when the DaemonSet no longer asks for a safe rollout); resolves to the writes made.
 */
export async function writeRolloutAnnotation(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  record: RolloutRecord | undefined,
): Promise<number> {
  if (deps.ports.kube.managedKind !== 'apps/v1') return 0;
  const stored = ds.metadata?.annotations?.[ROLLOUT_STATUS_ANNOTATION];
  if (stored === undefined ? record === undefined : same(rolloutRecordOf(ds), record)) return 0;
  const meta = ds.metadata ?? {};
  try {
    await deps.ports.kube.patchDaemonSetAnnotations(
      { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
      { [ROLLOUT_STATUS_ANNOTATION]: record === undefined ? null : JSON.stringify(record) },
    );
    return 1;
  } catch (error) {
    if (error instanceof NotFoundError) return 0;
    throw error;
  }
}

/** The report key counting each rollout event. */
const EVENT_COUNTS: Readonly<Record<RolloutEvent['reason'], ReportKey>> = {
  RolloutStepComplete: 'rolloutSteps',
  RolloutDomainComplete: 'rolloutDomains',
  RolloutHalted: 'rolloutHalts',
  RolloutReverted: 'rolloutReverts',
  RolloutRetried: 'rolloutRetries',
};

/**
 * Records the events of the step's decision, when its record is news: a repeated step, or a replay
 * of one already stored, finds its record stored and records nothing again. Resolves to their
 * counts, which become metrics.
 */
export function recordRolloutEvents(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  record: RolloutRecord | undefined,
  events: readonly RolloutEvent[],
): StepReport {
  const report = emptyReport();
  if (same(rolloutRecordOf(ds), record)) return report;
  for (const event of events) {
    if (event.type === 'Warning') deps.memory.events.warning(ds, event.reason, event.message);
    else deps.memory.events.normal(ds, event.reason, event.message);
    report[EVENT_COUNTS[event.reason]]++;
  }
  return report;
}
