/**
 * The rolling update of the DaemonSet step (upstream update.go rollingUpdate): the pure plan of
 * which old pods go and which surge pods come on this step (`planRollout`, lib/core/rolling-update/plan.ts,
 * within maxUnavailable, maxSurge, the partition, the rollout selector, pause and the strict budget),
 * executed on the listed state, and the views as they stand after its deletes.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import type { Action } from '../../core/action.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import type { NodeView } from '../../core/node-view.ts';
import { planRollout } from '../../core/rolling-update/plan.ts';
import type { RolloutAllowance } from '../../core/safe-rollout/rollout-types.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import type { ExecutionResult } from '../effects/action-executor.ts';
import { sumReports } from '../effects/step-report.ts';
import { pairKey } from '../memory/expectations.ts';
import { inPlaceInsteadOfDeletes } from './in-place-rollout.ts';
import { executeRetryingConflicts } from './retry-conflicted-deletes.ts';

/** What the rolling update works from: the step's views of the nodes and its pod LIST. */
export interface RollingUpdateInput {
  readonly ds: Readonly<DaemonSet>;
  readonly views: readonly NodeView[];
  readonly pods: readonly V1Pod[];
  readonly currentHash: string;
  /** The node readiness gate keys the DaemonSet's pods tolerate. */
  readonly gateKeys: readonly string[];
  readonly now: Date;
  /** The safe rollout's limits on this step, if the DaemonSet has one. */
  readonly allowance?: RolloutAllowance | undefined;
  /** The DaemonSet's revisions: an in-place update reads the change between two of them. */
  readonly revisions?: readonly V1ControllerRevision[];
}

/** What the rolling update did on this step. */
export interface RollingUpdateResult {
  /** The planned actions: deletes of old pods, creates of surge pods, and waits. */
  readonly actions: readonly Action[];
  readonly executed: ExecutionResult;
  /** The views with the pods this step deleted marked terminating until their grace period ends. */
  readonly viewsAfter: readonly NodeView[];
  /** When a Deferred in-place resize reaches its deadline, in seconds (effects/in-place-update-fallback.ts). */
  readonly resizeDeadlineSeconds?: number;
}

/**
 * Plans and executes this step of the rolling update. Each replacement is expected before its
 * delete goes out: a deletion's event brings the pair step that creates the replacement, and at 250
 * deletes a step the first of those runs before the last delete is sent. Only a delete the API
 * server took is held in the kept table as being deleted: a step cut short (a 429) leaves the pods
 * it did not delete to the next step's plan.
 */
export async function rollingUpdate(
  deps: ReconcileDeps,
  input: Readonly<RollingUpdateInput>,
): Promise<RollingUpdateResult> {
  const { ds, views, currentHash, now, gateKeys, allowance } = input;
  const planned = planRollout({ ds, nodes: views, currentHash, now, gateKeys, allowance });
  // Old pods the DaemonSet lets update in place are patched instead of deleted (in-place-rollout.ts).
  const pass = await inPlaceInsteadOfDeletes(deps, {
    ds,
    actions: planned,
    pods: input.pods,
    revisions: input.revisions ?? [],
    targetHash: currentHash,
    nodes: new Map(views.flatMap((view) => (view.node ? [[view.name, view.node]] : []))),
  });
  const { actions, fallbacks } = pass;
  const uid = ds.metadata?.uid ?? '';
  const executed = await executeRetryingConflicts(
    deps,
    ds,
    actions,
    {
      pods: input.pods,
      verifyNameClashes: true,
      beforeDelete: (action) =>
        deps.memory.expectations.expectReplacement(pairKey(uid, action.node), now.getTime()),
      afterDelete: (action) => {
        deps.memory.keptPods.noteDeleting(uid, action.uid, now);
        fallbacks.afterDelete(action);
      },
    },
    { targetHash: currentHash, now },
  );
  const report = sumReports(executed.report, pass.report, fallbacks.report());
  return {
    actions,
    executed: { ...executed, report },
    viewsAfter: afterDeletes(views, actions, now),
    ...(fallbacks.requeueAfterSeconds === undefined
      ? {}
      : { resizeDeadlineSeconds: fallbacks.requeueAfterSeconds }),
  };
}

/** The views with the pods the rolling update just deleted marked terminating until their grace period ends. */
function afterDeletes(views: readonly NodeView[], actions: readonly Action[], now: Date): NodeView[] {
  const deleted = new Set(actions.flatMap((a) => (a.type === 'delete' ? [a.uid] : [])));
  if (deleted.size === 0) return [...views];
  return views.map((view) => ({
    ...view,
    pods: view.pods.map((pod): V1Pod => {
      if (!deleted.has(pod.metadata?.uid ?? '') || pod.metadata?.deletionTimestamp) return pod;
      const grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
      return {
        ...pod,
        metadata: { ...pod.metadata, deletionTimestamp: new Date(now.getTime() + grace * 1000) },
      };
    }),
  }));
}
