/**
 * The DaemonSet's ControllerRevision history (upstream update.go constructHistory, with
 * controller_ref_manager.go ClaimControllerRevisions for adoption): claim, plan with
 * `planRevisions`, write.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { controllerOf, controllerRefFor } from '../../core/controller-ref.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { labelSelectorMatches } from '../../core/label-selector.ts';
import { planRevisions } from '../../core/revision-history.ts';
import { EverynodeError } from '../../errors/everynode-error.ts';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';

/** The revision step's outcome: the hash new pods get and the collisionCount status must carry. */
export interface RevisionResult {
  readonly currentHash: string;
  readonly collisionCount: number;
  readonly report: StepReport;
}

/** The revisions kept changing under the step (two lost races in a row); retried by redelivery. */
export class RevisionConflictError extends EverynodeError {
  constructor(ds: Readonly<DaemonSet>, options: { cause?: unknown } = {}) {
    const meta = ds.metadata ?? {};
    super(
      `writing the ControllerRevisions of DaemonSet ${meta.namespace}/${meta.name}: they changed twice while planning`,
      true,
      options,
    );
  }
}

/**
 * Adopts orphan revisions whose labels match the selector and releases controlled ones that no
 * longer match (upstream ClaimControllerRevisions), each by an update guarded by its
 * resourceVersion. Returns the namespace's revisions as they are after the claims.
 */
async function claimRevisions(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  revisions: readonly V1ControllerRevision[],
  report: StepReport,
): Promise<V1ControllerRevision[]> {
  const uid = ds.metadata?.uid ?? '';
  const selector = ds.spec?.selector ?? {};
  const ref = controllerRefFor(ds);
  const claimed: V1ControllerRevision[] = [];
  for (const revision of revisions) {
    const owner = controllerOf(revision);
    const matches = labelSelectorMatches(selector, revision.metadata?.labels);
    let owners: V1ControllerRevision['metadata'];
    if (owner === undefined && matches && !revision.metadata?.deletionTimestamp) {
      owners = {
        ...revision.metadata,
        ownerReferences: [...(revision.metadata?.ownerReferences ?? []), ref],
      };
    } else if (owner?.uid === uid && !matches) {
      owners = {
        ...revision.metadata,
        ownerReferences: revision.metadata?.ownerReferences?.filter((r) => r.uid !== uid),
      };
    }
    if (owners === undefined) claimed.push(revision);
    else {
      claimed.push(await deps.ports.kube.updateControllerRevision({ ...revision, metadata: owners }));
      report.revisionWrites++;
    }
  }
  return claimed;
}

/** Applies a revision plan; throws AlreadyExists/Conflict when another writer got there first. */
async function applyPlan(
  deps: ReconcileDeps,
  plan: ReturnType<typeof planRevisions>,
  report: StepReport,
): Promise<void> {
  if (plan.create) {
    await deps.ports.kube.createControllerRevision(plan.create);
    report.revisionWrites++;
  }
  if (plan.update) {
    await deps.ports.kube.updateControllerRevision(plan.update);
    report.revisionWrites++;
  }
  for (const revision of plan.delete) {
    const meta = revision.metadata ?? {};
    try {
      await deps.ports.kube.deleteControllerRevision({
        namespace: meta.namespace ?? 'default',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      });
      report.revisionWrites++;
    } catch (error) {
      if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
    }
  }
  // plan.relabel (pods of a de-duplicated revision) needs a pod label patch the KubePort does not
  // offer; such pods then count as old and the rolling update replaces them, as a controller that
  // never relabels would. Duplicates only arise when two controllers wrote revisions.
}

/**
 * Claims and plans the revisions of `ds` given the namespace's `revisions` and the DaemonSet's
 * `pods`, then writes the plan. When a create or update loses a race (AlreadyExists, Conflict) the
 * revisions are listed again and the step re-planned once; a second loss throws
 * RevisionConflictError. Returns the current hash and the collisionCount.
 */
export async function syncRevisionHistory(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  revisions: readonly V1ControllerRevision[],
  pods: readonly V1Pod[],
): Promise<RevisionResult> {
  const report = emptyReport();
  let current = revisions;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const claimed = await claimRevisions(deps, ds, current, report);
      const plan = planRevisions(ds, claimed, pods);
      await applyPlan(deps, plan, report);
      return { currentHash: plan.currentHash, collisionCount: plan.collisionCount, report };
    } catch (error) {
      if (!(error instanceof AlreadyExistsError || error instanceof ConflictError) || attempt > 0) {
        throw error instanceof ConflictError || error instanceof AlreadyExistsError
          ? new RevisionConflictError(ds, { cause: error })
          : error;
      }
      report.conflicts++;
      current = (await deps.ports.kube.listControllerRevisions(ds.metadata?.namespace ?? 'default')).items;
    }
  }
  throw new RevisionConflictError(ds);
}
