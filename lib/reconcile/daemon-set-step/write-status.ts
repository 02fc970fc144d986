/**
 * Writing DaemonSet status only when it changed (upstream storeDaemonSetStatus: compare, write,
 * on a conflict read the DaemonSet again and retry once), and the condition an invalid spec gets.
 */
import type { V1DaemonSetCondition, V1DaemonSetStatus } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { statusChanged } from '../../core/daemon-set-status.ts';
import { nodeSizingStatusOf } from '../../core/placement-status.ts';
import { type RolloutRecord, rolloutRecordOf } from '../../core/safe-rollout/rollout-record.ts';
import { ConflictError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { REFUSED_CONDITION, refusedRevision } from '../effects/template-refusal.ts';

/**
 * The condition type of an invalid spec. Upstream DaemonSets have no such condition (the API server
 * rejects invalid apps/v1 specs); everynode.dev/v1 specs and the extension annotations are validated
 * by the controller, so it reports them the way a Deployment reports a create failure:
 * `ReplicaFailure=True` with reason `InvalidSpec` and the violations as message.
 */
export const INVALID_SPEC_CONDITION = 'ReplicaFailure';
/** The reason of the invalid-spec condition (and of its Warning event). */
export const INVALID_SPEC_REASON = 'InvalidSpec';

/**
 * `ds`'s stored status with the invalid-spec condition set to `message` (its lastTransitionTime
 * kept while the condition stays), other fields unchanged.
 */
export function invalidSpecStatus(ds: Readonly<DaemonSet>, message: string, now: Date): V1DaemonSetStatus {
  const prev = ds.status;
  const others = (prev?.conditions ?? []).filter((c) => c.type !== INVALID_SPEC_CONDITION);
  const old = prev?.conditions?.find((c) => c.type === INVALID_SPEC_CONDITION && c.status === 'True');
  const condition: V1DaemonSetCondition = {
    type: INVALID_SPEC_CONDITION,
    status: 'True',
    reason: INVALID_SPEC_REASON,
    message,
    lastTransitionTime: old?.lastTransitionTime ?? now,
  };
  return {
    currentNumberScheduled: prev?.currentNumberScheduled ?? 0,
    desiredNumberScheduled: prev?.desiredNumberScheduled ?? 0,
    numberMisscheduled: prev?.numberMisscheduled ?? 0,
    numberReady: prev?.numberReady ?? 0,
    ...prev,
    conditions: [...others, condition],
  };
}

/** Conditions compared as JSON with times as ISO strings (a Date and its string are the same time). */
function conditionsText(status: Readonly<V1DaemonSetStatus> | undefined): string {
  // In a fixed key order: a condition read from the API server and one built here list their
  // fields differently, and must still compare equal when they say the same.
  return JSON.stringify(
    (status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message, iso(c.lastTransitionTime)]),
  );
}

function iso(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? new Date(value).toISOString() : undefined;
}

/** The safe rollout's record in a status, as JSON (statuses of apps/v1 have none). */
function rolloutText(status: Readonly<V1DaemonSetStatus> | undefined): string {
  return JSON.stringify((status as { rollout?: unknown } | undefined)?.rollout ?? null);
}

/** True when writing `next` over `ds`'s status changes something. */
export function needsStatusWrite(ds: Readonly<DaemonSet>, next: Readonly<V1DaemonSetStatus>): boolean {
  const prev = ds.status;
  if (rolloutText(prev) !== rolloutText(next)) return true;
  if (nodeSizingStatusOf(prev) !== nodeSizingStatusOf(next)) return true;
  const normalized = { ...ds, status: prev && { ...prev, conditions: undefined } } as DaemonSet;
  if (statusChanged(normalized, { ...next, conditions: undefined })) return true;
  if ((prev?.collisionCount ?? 0) !== (next.collisionCount ?? 0)) return true;
  return conditionsText(prev) !== conditionsText(next);
}

/**
 * Writes `status` to `ds` when it differs from the stored one; on a Conflict reads the DaemonSet
 * again and writes once more if it is the same object and still differs. Resolves to the number of
 * writes made (0 or 1); a second Conflict is thrown (retryable). A DaemonSet deleted since it was
 * read (404 NotFound: a `kubectl delete` or its namespace's teardown) has no status left to write:
 * the step is done, as upstream's next sync of a missing DaemonSet is.
 */
export async function writeDaemonSetStatus(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
): Promise<number> {
  return (await writeDaemonSetStatusObject(deps, ds, status)) === undefined ? 0 : 1;
}

/** {@link writeDaemonSetStatus}, resolving to the DaemonSet as stored by the write made, if any. */
export async function writeDaemonSetStatusObject(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
): Promise<DaemonSet | undefined> {
  if (!needsStatusWrite(ds, status)) return undefined;
  try {
    return await writeOrConflict(deps, ds, status);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

async function writeOrConflict(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
): Promise<DaemonSet | undefined> {
  // The written object is the DaemonSet at its new resourceVersion: the version the relay's node
  // hints name next, so the process's node steps find it in the cache instead of listing.
  const stored = (written: DaemonSet) => {
    deps.memory.objects.putDaemonSet(written, deps.clock().getTime());
    return written;
  };
  try {
    return stored(await deps.ports.kube.updateDaemonSetStatus({ ...ds, status: { ...status } }));
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const meta = ds.metadata ?? {};
    const fresh = await deps.ports.kube.getDaemonSet(meta.namespace ?? 'default', meta.name ?? '');
    if (fresh === undefined || fresh.metadata?.uid !== meta.uid) return undefined;
    const kept = keepingHalt(fresh, keepingRefusal(ds, fresh, status));
    if (!needsStatusWrite(fresh, kept)) return undefined;
    return stored(await deps.ports.kube.updateDaemonSetStatus({ ...fresh, status: { ...kept } }));
  }
}

/**
 * `status` with the refused-template condition a pair step wrote on `fresh` since `status` was
 * counted from `ds` (effects/template-refusal.ts), unless `status` has a condition of that type of
 * its own.
 */
function keepingRefusal(
  ds: Readonly<DaemonSet>,
  fresh: Readonly<DaemonSet>,
  status: Readonly<V1DaemonSetStatus>,
): V1DaemonSetStatus {
  const refusal = fresh.status?.conditions?.find((c) => c.type === REFUSED_CONDITION);
  const written = refusedRevision(fresh);
  if (written === undefined || written === refusedRevision(ds) || refusal === undefined) return status;
  if (status.conditions?.some((c) => c.type === REFUSED_CONDITION)) return status;
  return { ...status, conditions: [...(status.conditions ?? []), refusal] };
}

/**
 * `status` with the halted rollout record `fresh` carries, when `status` (counted from an older read)
 * holds a record of the same revision that is neither halted nor lifted by a retry of that halt: a
 * step that read the DaemonSet before another step halted its rollout must not lift the halt by
 * writing over it (docs/design.md, 30).
 */
function keepingHalt(fresh: Readonly<DaemonSet>, status: Readonly<V1DaemonSetStatus>): V1DaemonSetStatus {
  const next = (status as { rollout?: RolloutRecord }).rollout;
  const kept = recordKeepingHalt(rolloutRecordOf(fresh), next);
  return kept === next ? status : ({ ...status, rollout: kept } as V1DaemonSetStatus);
}

/**
 * `next`, or the halted record `stored` when `next` (decided from an older read) is of the same
 * revision, neither halted nor lifted by a retry of that halt.
 */
export function recordKeepingHalt(
  stored: RolloutRecord | undefined,
  next: RolloutRecord | undefined,
): RolloutRecord | undefined {
  if (stored?.haltedAt === undefined || next === undefined || next.revision !== stored.revision) return next;
  // A halted record, or one a retry of this very halt lifted, goes as decided.
  if (next.haltedAt !== undefined || next.retried === stored.haltedAt) return next;
  return stored;
}
