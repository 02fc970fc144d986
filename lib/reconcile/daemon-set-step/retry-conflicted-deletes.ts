/**
 * The rolling update's deletes that met a Conflict, tried once more from a fresh read of their pair
 * (docs/design.md, 30. Rollouts that stop themselves: a halt's deletes go in the halting step). A
 * delete carries the pod's resourceVersion, and a pod changes whenever its node does: an agent that
 * breaks its node turns its pod unready a moment after the step listed it. Left to the next step,
 * such a pod stayed a second longer (measured: a fifth of the pods a revert deletes at 5,000 nodes,
 * 1.2 s late). The plan's budget holds: the same pod is deleted, and never one it counted as
 * unavailable that is available again (that would cost a slot the plan did not give).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type Action, type DeleteAction, deletePodAction } from '../../core/action.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { isPodAvailable, isPodTerminating } from '../../core/pod-availability.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { type ExecutionOptions, type ExecutionResult, executeActions } from '../effects/action-executor.ts';
import { sumReports } from '../effects/step-report.ts';
import { pairPodsQuery } from '../reads/selector-query.ts';

/** What a retry needs besides the plan: the revision the update moves nodes to, and the plan's moment. */
export interface RetryContext {
  readonly targetHash: string;
  readonly now: Date;
}

/**
 * True when `fresh`, the pod read again after a Conflict, may still be deleted as planned from
 * `listed`: the same pod, not terminating, still of another revision than the target (an in-place
 * update may have moved it), and not turned available after the plan counted it unavailable.
 */
export function stillToDelete(
  listed: Readonly<V1Pod>,
  fresh: Readonly<V1Pod>,
  targetHash: string,
  minReadySeconds: number,
  now: Date,
): boolean {
  if (fresh.metadata?.uid !== listed.metadata?.uid || isPodTerminating(fresh)) return false;
  if (fresh.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === targetHash) return false;
  const wasAvailable = isPodAvailable(listed, minReadySeconds, now);
  return wasAvailable || !isPodAvailable(fresh, minReadySeconds, now);
}

/**
 * The pods of the deletes in `missed` that may still go ({@link stillToDelete}), each read again by
 * one small LIST of its pair (by the node label, not from the watch cache: the read must see the
 * change that made the delete conflict), as deletes with their new resourceVersion.
 */
async function readAgain(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  missed: readonly DeleteAction[],
  listed: ReadonlyMap<string, V1Pod>,
  context: Readonly<RetryContext>,
): Promise<DeleteAction[]> {
  const namespace = ds.metadata?.namespace ?? 'default';
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const again = await Promise.all(
    missed.map(async (action) => {
      const before = listed.get(action.uid);
      if (before === undefined) return [];
      const pods = await deps.ports.kube.listPods({ namespace, labelSelector: pairPodsQuery(action.node) });
      const pod = pods.items.find((p) => p.metadata?.uid === action.uid);
      if (pod === undefined || !stillToDelete(before, pod, context.targetHash, minReadySeconds, context.now))
        return [];
      return [deletePodAction(pod, action.node, action.reason)];
    }),
  );
  return again.flat();
}

/**
 * {@link executeActions} of the rolling update's `actions`, then, when deletes met a Conflict, those
 * deletes once more from a fresh read of their pairs (the creates skipped after a Conflict are left
 * to the next step, as before). A second Conflict leaves the pod to the next step too.
 */
export async function executeRetryingConflicts(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  actions: readonly Action[],
  options: Readonly<ExecutionOptions>,
  context: Readonly<RetryContext>,
): Promise<ExecutionResult> {
  const done = new Set<string>();
  const tracked: ExecutionOptions = {
    ...options,
    afterDelete: (action) => {
      done.add(action.uid);
      options.afterDelete?.(action);
    },
  };
  const first = await executeActions(deps, ds, actions, tracked);
  if (!first.conflict) return first;
  const missed = actions.filter((a): a is DeleteAction => a.type === 'delete' && !done.has(a.uid));
  const listed = new Map((options.pods ?? []).map((pod) => [pod.metadata?.uid ?? '', pod]));
  const again = await readAgain(deps, ds, missed, listed, context);
  if (again.length === 0) return first;
  const retried = await executeActions(deps, ds, again, tracked);
  return { ...first, report: sumReports(first.report, retried.report) };
}
