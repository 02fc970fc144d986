/**
 * The plan vocabulary of the core: what a decision function asks the executor to do. Plans are data
 * (docs/design.md, 4. Decisions are data; one executor applies them); one place in the pipeline
 * executes them.
 */
import type { V1Pod } from '@kubernetes/client-node';

/**
 * One step of a plan.
 * - `create`: create `pod` (already named, labelled and pinned to `node`); a 409 AlreadyExists means
 *   another run already did it.
 * - `delete`: delete the pod with `uid` and `resourceVersion` preconditions, so a stale plan never
 *   removes a pod that changed since it was read; a 404 means it is already gone.
 * - `requeue`: look at the pair / DaemonSet again after `afterSeconds` (a backoff or a pod waiting
 *   for `minReadySeconds`), because nothing else will trigger that look.
 */
export type Action =
  | { type: 'create'; node: string; pod: V1Pod; reason: string }
  | {
      type: 'delete';
      node: string;
      namespace: string;
      name: string;
      uid: string;
      resourceVersion: string;
      reason: string;
      /**
       * The delete follows from the node's facts — the node gone, or a taint, label or affinity that
       * no longer lets the pod continue running — rather than from the pod itself: it is right only
       * while the node is as it was planned from, which a pod precondition cannot see.
       */
      becauseOfNode?: true;
    }
  | { type: 'requeue'; afterSeconds: number; reason: string };

/** A create action. */
export type CreateAction = Extract<Action, { type: 'create' }>;
/** A delete action. */
export type DeleteAction = Extract<Action, { type: 'delete' }>;
/** A requeue action. */
export type RequeueAction = Extract<Action, { type: 'requeue' }>;

/**
 * The delete action for `pod` on `node`, carrying the pod's uid and resourceVersion as
 * preconditions (what upstream's podControl.DeletePod lacks and our at-least-once queue needs).
 */
export function deletePodAction(pod: Readonly<V1Pod>, node: string, reason: string): DeleteAction {
  return {
    type: 'delete',
    node,
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    resourceVersion: pod.metadata?.resourceVersion ?? '',
    reason,
  };
}

/**
 * True when some delete of `actions` follows from the node's facts (`becauseOfNode`): such a plan
 * must be made from the node's current version before it is executed.
 */
export function deletesBecauseOfNode(actions: readonly Action[]): boolean {
  return actions.some((action) => action.type === 'delete' && action.becauseOfNode === true);
}

/**
 * The single requeue that satisfies every requeue in `actions` (the earliest one), or undefined
 * when there is none; several reasons to look again collapse into one look.
 */
export function earliestRequeue(actions: readonly Action[]): RequeueAction | undefined {
  let earliest: RequeueAction | undefined;
  for (const action of actions) {
    if (
      action.type === 'requeue' &&
      (earliest === undefined || action.afterSeconds < earliest.afterSeconds)
    ) {
      earliest = action;
    }
  }
  return earliest;
}
