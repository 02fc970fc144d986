/**
 * The surge branch of upstream pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0): new
 * pods are created beside old ones and the old ones deleted once the new ones are available.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type Action, deletePodAction } from '../action.ts';
import { createPodAction } from '../create-pod-action.ts';
import { sizedCreate } from '../node-sizing/sized-create.ts';
import type { NodeView } from '../node-view.ts';
import { findUpdatedPodsOnNode } from '../pod-revision.ts';
import {
  available,
  inScope,
  partitionAllowance,
  type RolloutContext,
  withinAllowance,
} from './step-context.ts';

interface SurgeTally {
  numSurge: number;
  numAvailable: number;
  oldOnly: number;
  /** Old pods to delete at once: their new pod is available. */
  oldPodsToDelete: [NodeView, V1Pod][];
  /** Unavailable old pods where the pod should not run: deleted at once, within a safe rollout's allowance. */
  unavailableShouldNotRun: [NodeView, V1Pod][];
  /** Available old pods on nodes that should no longer run the pod. */
  shouldNotRunPodsToDelete: [NodeView, V1Pod][];
  /** Nodes whose old pod is unavailable: a new pod may start at once. */
  allowedNewNodes: NodeView[];
  /** Nodes whose old pod is available: a new pod may start within maxSurge. */
  candidateNewNodes: NodeView[];
}

/**
 * The surge step: upstream's rules, plus the rollout selector (out-of-scope nodes are left alone),
 * the strict cap (creates beside unavailable old pods count against maxSurge too) and the partition
 * cap (new pods started beside old-only pods stay within `oldOnlyNodes - partition`).
 */
export function planSurgeStep(ctx: Readonly<RolloutContext>): Action[] {
  const tally = tallySurge(ctx);
  // Deleting an old pod where the pod should not run (a node turned NotReady, say) moves the node
  // to the revision once it can take a pod again: a safe rollout's allowance bounds it like any
  // move, and the moves of one step share it (`spend`).
  let left = ctx.allowance?.maxNewNodes ?? Number.POSITIVE_INFINITY;
  const spend = <T extends readonly [NodeView, ...unknown[]]>(chosen: readonly T[]): T[] => {
    const taken = withinAllowance(ctx, chosen).slice(0, left);
    left -= taken.length;
    return taken;
  };
  const deletes = [...tally.oldPodsToDelete, ...spend(tally.unavailableShouldNotRun)];
  // With maxSurge the owner expects full availability: a pod on a node that should no longer run
  // it goes only once enough pods elsewhere are available (upstream "deletablePodsNumber").
  const deletable = Math.max(0, tally.numAvailable - ctx.desiredNumberScheduled);
  deletes.push(...spend(tally.shouldNotRunPodsToDelete.slice(0, deletable)));
  const remainingSurge = Math.max(0, ctx.budget.maxSurge - tally.numSurge);
  const single = (views: readonly NodeView[]) =>
    withinAllowance(
      ctx,
      views.map((view) => [view] as const),
    );
  const allowed = single(tally.allowedNewNodes).map(([view]) => view);
  const candidates = single(tally.candidateNewNodes).map(([view]) => view);
  let creates = [...allowed, ...candidates.slice(0, remainingSurge)];
  if (ctx.extensions.strict) creates = creates.slice(0, remainingSurge);
  creates = spend(
    creates.slice(0, partitionAllowance(ctx, tally.oldOnly)).map((view) => [view] as const),
  ).map(([view]) => view);
  return [
    ...deletes.map(([view, pod]) =>
      deletePodAction(
        pod,
        view.name,
        `rolling update (surge): removing old daemon pod ${pod.metadata?.name} on node ${view.name}`,
      ),
    ),
    ...creates.map((view) =>
      sizedCreate(
        createPodAction(
          ctx.ds,
          view.name,
          ctx.currentHash,
          view.pods,
          {},
          `rolling update (surge): new daemon pod beside old one on node ${view.name}`,
          ctx.gateKeys,
        ),
        ctx.ds,
        view.node,
      ),
    ),
  ];
}

function tallySurge(ctx: Readonly<RolloutContext>): SurgeTally {
  const tally: SurgeTally = {
    numSurge: 0,
    numAvailable: 0,
    oldOnly: 0,
    oldPodsToDelete: [],
    unavailableShouldNotRun: [],
    shouldNotRunPodsToDelete: [],
    allowedNewNodes: [],
    candidateNewNodes: [],
  };
  for (const view of ctx.views) {
    const found = findUpdatedPodsOnNode(ctx.ds, view.pods, ctx.currentHash, view.node);
    if (!found.ok) {
      // The pair plan prunes excess pods first; count the node as surging meanwhile.
      tally.numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    const counted = oldPod ?? newPod;
    if (counted && available(ctx, counted)) tally.numAvailable++;
    if (oldPod === undefined) continue;
    if (newPod === undefined) tallyOldOnly(ctx, view, oldPod, tally);
    else if (!available(ctx, newPod)) tally.numSurge++;
    else tally.oldPodsToDelete.push([view, oldPod]);
  }
  return tally;
}

function tallyOldOnly(ctx: Readonly<RolloutContext>, view: NodeView, oldPod: V1Pod, tally: SurgeTally): void {
  tally.oldOnly++;
  if (!inScope(ctx, view)) return;
  if (!available(ctx, oldPod)) {
    if (view.shouldRun) tally.allowedNewNodes.push(view);
    else tally.unavailableShouldNotRun.push([view, oldPod]);
  } else if (view.shouldRun) {
    tally.candidateNewNodes.push(view);
  } else {
    tally.shouldNotRunPodsToDelete.push([view, oldPod]);
  }
}
