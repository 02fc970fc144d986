/**
 * The safe rollout's record where the DaemonSet keeps it, and its events (docs/design.md, 30.
 * Rollouts that stop themselves). On everynode.dev/v1 the record is `status.rollout`, written with
 * the rest of the status; on apps/v1, whose status the API server prunes to its schema, it is the
 * `everynode.dev/rollout-status` annotation, patched after the status is written, over the
 * DaemonSet as read (a stale step's record never overwrites a halt written since).
 */
import type { V1DaemonSetStatus } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import {
  ROLLOUT_STATUS_ANNOTATION,
  type RolloutRecord,
  rolloutRecordOf,
} from '../../core/safe-rollout/rollout-record.ts';
import type { RolloutEvent } from '../../core/safe-rollout/rollout-types.ts';
import { ConflictError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type ReportKey, type StepReport } from '../effects/step-report.ts';
import { recordKeepingHalt, writeDaemonSetStatusObject } from './write-status.ts';

/** `status` as the API server keeps it for the managed kind: apps/v1 has no `rollout` nor `nodeSizing`. */
export function statusForKind(deps: ReconcileDeps, status: Readonly<V1DaemonSetStatus>): V1DaemonSetStatus {
  if (deps.ports.kube.managedKind !== 'apps/v1') return { ...status };
  const {
    rollout: _,
    nodeSizing: _sizing,
    ...rest
  } = status as V1DaemonSetStatus & {
    rollout?: unknown;
    nodeSizing?: unknown;
  };
  return rest;
}

const same = (a: RolloutRecord | undefined, b: RolloutRecord | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** True when the annotation of `ds` does not hold `record` (or, for none, is there). */
function annotationDiffers(ds: Readonly<DaemonSet>, record: RolloutRecord | undefined): boolean {
  const stored = ds.metadata?.annotations?.[ROLLOUT_STATUS_ANNOTATION];
  return stored === undefined ? record !== undefined : !same(rolloutRecordOf(ds), record);
}

async function patchRecord(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  record: RolloutRecord | undefined,
): Promise<DaemonSet> {
  const meta = ds.metadata ?? {};
  const written = await deps.ports.kube.patchDaemonSetAnnotations(
    {
      namespace: meta.namespace ?? 'default',
      name: meta.name ?? '',
      uid: meta.uid ?? '',
      ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    },
    { [ROLLOUT_STATUS_ANNOTATION]: record === undefined ? null : JSON.stringify(record) },
  );
  deps.memory.objects.putDaemonSet(written, deps.clock().getTime());
  return written;
}

/**
 * On apps/v1, writes `record` to the annotation when it differs from the DaemonSet's (removes it
 * when the DaemonSet no longer asks for a safe rollout), only over the DaemonSet as read (its
 * resourceVersion). On a Conflict it reads the DaemonSet again and writes once more, keeping a halt
 * written since (`recordKeepingHalt`), as the status write does. Resolves to the DaemonSet as stored
 * by the write made, if any.
 */
export async function writeRolloutAnnotation(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  record: RolloutRecord | undefined,
): Promise<DaemonSet | undefined> {
  if (deps.ports.kube.managedKind !== 'apps/v1' || !annotationDiffers(ds, record)) return undefined;
  try {
    try {
      return await patchRecord(deps, ds, record);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const meta = ds.metadata ?? {};
      const fresh = await deps.ports.kube.getDaemonSet(meta.namespace ?? 'default', meta.name ?? '');
      if (fresh === undefined || fresh.metadata?.uid !== meta.uid) return undefined;
      const kept = recordKeepingHalt(rolloutRecordOf(fresh), record);
      return annotationDiffers(fresh, kept) ? await patchRecord(deps, fresh, kept) : undefined;
    }
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * Writes the status (the record in it on everynode.dev/v1) and, on apps/v1, the record's
 * annotation, each when it changed. Resolves to the writes made and the DaemonSet as stored after
 * them (`ds` when none was made).
 */
export async function writeStatusAndRecord(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
  record: RolloutRecord | undefined,
): Promise<{ writes: number; ds: Readonly<DaemonSet> }> {
  const afterStatus = await writeDaemonSetStatusObject(deps, ds, statusForKind(deps, status));
  const afterRecord = await writeRolloutAnnotation(deps, afterStatus ?? ds, record);
  return {
    writes: (afterStatus ? 1 : 0) + (afterRecord ? 1 : 0),
    ds: afterRecord ?? afterStatus ?? ds,
  };
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
