/**
 * What one rollout step knows, shared by the no-surge and surge strategies of the rollout plan.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import type { RolloutExtensions } from '../extensions.ts';
import { labelSelectorMatches } from '../label-selector.ts';
import type { NodeView } from '../node-view.ts';
import { isPodAvailable } from '../pod-availability.ts';
import type { RolloutAllowance } from '../safe-rollout/rollout-types.ts';
import type { RolloutBudget } from './budget.ts';

/** The inputs of one rollout step after filtering, with the budgets and extension settings. */
export interface RolloutContext {
  ds: Readonly<DaemonSet>;
  /** Nodes that should run the DaemonSet or hold its pods, sorted by name. */
  views: readonly NodeView[];
  currentHash: string;
  now: Date;
  /** The node readiness gate keys the pods the step creates tolerate. */
  gateKeys: readonly string[];
  desiredNumberScheduled: number;
  budget: RolloutBudget;
  extensions: RolloutExtensions;
  /** The safe rollout's limits on this step (steps, domains, a halt); undefined without one. */
  allowance?: RolloutAllowance | undefined;
}

/** True when `pod` is available under the DaemonSet's minReadySeconds at the context's now. */
export function available(ctx: Readonly<RolloutContext>, pod: Readonly<V1Pod>): boolean {
  return isPodAvailable(pod, ctx.ds.spec?.minReadySeconds ?? 0, ctx.now);
}

/**
 * True when the rollout may touch the node: no rollout selector, or a node whose labels match it
 * (a vanished node matches only an empty selector).
 */
export function inScope(ctx: Readonly<RolloutContext>, view: Readonly<NodeView>): boolean {
  const selector = ctx.extensions.selector;
  if (selector === undefined) return true;
  return labelSelectorMatches(selector, view.node?.metadata?.labels ?? {});
}

/**
 * How many old-only nodes the partition still lets the rollout replace: all of them without a
 * partition, else `oldOnlyNodes - partition` (never negative): OpenKruise semantics, the
 * partition is the number of pods kept on old revisions.
 */
export function partitionAllowance(ctx: Readonly<RolloutContext>, oldOnlyNodes: number): number {
  return Math.max(0, oldOnlyNodes - ctx.extensions.partition);
}

/**
 * `chosen` (nodes the step would move to the revision, each first in a tuple) within the safe
 * rollout's allowance: only the nodes it lets the step touch, in its order (domain, then name),
 * at most as many as its current step still allows. Unchanged without a safe rollout.
 */
export function withinAllowance<T extends readonly [NodeView, ...unknown[]]>(
  ctx: Readonly<RolloutContext>,
  chosen: readonly T[],
): T[] {
  const allowance = ctx.allowance;
  if (allowance === undefined) return [...chosen];
  if (allowance.halted) return [];
  const rank = new Map(allowance.order.map((name, i) => [name, i]));
  return chosen
    .filter(([view]) => rank.has(view.name))
    .sort(([a], [b]) => (rank.get(a.name) ?? 0) - (rank.get(b.name) ?? 0))
    .slice(0, allowance.maxNewNodes);
}
