/**
 * The DaemonSet-wide rolling-update step: upstream pkg/controller/daemon/update.go rollingUpdate
 * (no-surge and surge branches) with everynode's extensions (partition, paused, rollout node
 * selector, strict budget, burstReplicas).
 *
 * The plan only deletes old pods (and, with surge, creates new pods beside old ones); recreating
 * a pod on a node whose old pod was deleted is the pair plan's job, as upstream leaves it to the
 * manage loop, so the executor must plan those pairs after applying the deletes.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type Action, deletePodAction } from '../action.ts';
import { isControlledBy } from '../controller-ref.ts';
import type { DaemonSet } from '../daemon-set.ts';
import { rolloutExtensionsOf } from '../extensions.ts';
import { isEmptyLabelSelector } from '../label-selector.ts';
import type { NodeView } from '../node-view.ts';
import { isDeletedTerminalPod, isPodTerminating, secondsUntilAvailable } from '../pod-availability.ts';
import { findUpdatedPodsOnNode } from '../pod-revision.ts';
import type { RolloutAllowance } from '../safe-rollout/rollout-types.ts';
import { isRollingUpdate, rolloutBudget } from './budget.ts';
import {
  available,
  inScope,
  partitionAllowance,
  type RolloutContext,
  withinAllowance,
} from './step-context.ts';
import { planSurgeStep } from './surge.ts';

/** Everything the rollout step looks at. */
export interface RolloutState {
  ds: Readonly<DaemonSet>;
  /** Every node (and vanished node with pods) with its placement and pods: see nodeViewsFor. */
  nodes: readonly NodeView[];
  /** The controller-revision-hash of the current revision. */
  currentHash: string;
  now: Date;
  /**
   * The node readiness gate keys the DaemonSet's pods tolerate (default none): the surge step's
   * creates carry those tolerations. Placement is the views' (nodeViewsFor with the same keys).
   */
  gateKeys?: readonly string[];
  /** The safe rollout's limits (core/safe-rollout/rollout-progress.ts); none by default. */
  allowance?: RolloutAllowance | undefined;
}

/**
 * The rollout actions for this step:
 * - nothing for OnDelete, a paused rollout, a DaemonSet being deleted or selecting everything;
 * - maxSurge 0 (upstream): delete every old pod that is not available, and old available pods
 *   while fewer than maxUnavailable nodes are unavailable (a node counts as unavailable when it has
 *   no pod, an unavailable new pod, an old and a new pod, or several of a kind);
 * - maxSurge > 0 (upstream): create a new pod beside every unavailable old pod and beside up to
 *   maxSurge available old pods, delete old pods whose new pod is available;
 * - beyond upstream: only nodes matching the rollout selector are touched; at most
 *   `oldOnlyNodes - partition` nodes are replaced; under `strict`, unavailable old pods are
 *   replaced only within the budget too; at most burstReplicas creates and deletes; a safe
 *   rollout's steps, domains and halt bound what is touched, in its order;
 * - a requeue for when a ready pod becomes available under minReadySeconds while old pods remain.
 * maxUnavailable and maxSurge percentages are of the nodes that should run the pod, rounded up.
 */
export function planRollout(state: Readonly<RolloutState>): Action[] {
  const { ds } = state;
  if (
    ds.metadata?.deletionTimestamp ||
    isEmptyLabelSelector(ds.spec?.selector ?? {}) ||
    !isRollingUpdate(ds)
  ) {
    return [];
  }
  const extensions = rolloutExtensionsOf(ds);
  if (extensions.paused) return [];
  const desiredNumberScheduled = state.nodes.filter((view) => view.shouldRun).length;
  const ctx: RolloutContext = {
    ...state,
    gateKeys: state.gateKeys ?? [],
    views: relevantViews(ds, state.nodes),
    desiredNumberScheduled,
    budget: rolloutBudget(ds, desiredNumberScheduled),
    extensions,
  };
  const step = ctx.budget.maxSurge === 0 ? planNoSurgeStep(ctx) : planSurgeStep(ctx);
  return [...capBurst(step, extensions.burstReplicas), ...requeueForMinReady(ctx)];
}

/** Upstream's map of nodes: the ones that should run the pod plus any holding its pods. */
function relevantViews(ds: Readonly<DaemonSet>, nodes: readonly NodeView[]): NodeView[] {
  return nodes
    .map((view) => ({
      ...view,
      pods: view.pods.filter((p) => isControlledBy(p, ds) && !isDeletedTerminalPod(p)),
    }))
    .filter((view) => view.shouldRun || view.pods.length > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The no-surge branch of upstream rollingUpdate, with the strict cap (in-flight replacements, i.e.
 * unavailable nodes other than those whose old pod is merely unavailable, stay within
 * maxUnavailable) and the partition cap. Unavailable old pods go first: replacing them costs no
 * availability.
 */
function planNoSurgeStep(ctx: Readonly<RolloutContext>): Action[] {
  let numUnavailable = 0;
  let inFlight = 0;
  let oldOnly = 0;
  const replacements: [NodeView, V1Pod][] = [];
  const candidates: [NodeView, V1Pod][] = [];
  for (const view of ctx.views) {
    const found = findUpdatedPodsOnNode(ctx.ds, view.pods, ctx.currentHash, view.node);
    const oldPod = found.ok && found.newPod === undefined ? found.oldPod : undefined;
    if (oldPod === undefined) {
      // No pod, excess pods, old+new, or an unavailable new pod: the node is (being) replaced.
      const settled = found.ok && found.oldPod === undefined && found.newPod && available(ctx, found.newPod);
      if (!settled) [numUnavailable, inFlight] = [numUnavailable + 1, inFlight + 1];
      continue;
    }
    oldOnly++;
    const isAvailable = available(ctx, oldPod);
    if (!isAvailable) numUnavailable++;
    if (inScope(ctx, view)) (isAvailable ? candidates : replacements).push([view, oldPod]);
  }
  const { maxUnavailable } = ctx.budget;
  const [touchable, ordered] = [withinAllowance(ctx, replacements), withinAllowance(ctx, candidates)];
  let chosen = [...touchable, ...ordered.slice(0, Math.max(0, maxUnavailable - numUnavailable))];
  if (ctx.extensions.strict) chosen = chosen.slice(0, Math.max(0, maxUnavailable - inFlight));
  chosen = withinAllowance(ctx, chosen.slice(0, partitionAllowance(ctx, oldOnly)));
  const counted = new Set(candidates.map(([, pod]) => pod));
  return chosen.map(([view, pod]) => {
    const action = deletePodAction(
      pod,
      view.name,
      `rolling update: replacing old daemon pod ${pod.metadata?.name} on node ${view.name}`,
    );
    // A pod counted available spends its slot whatever it turned into since: its uid suffices.
    return counted.has(pod) ? { ...action, resourceVersion: '' } : action;
  });
}

/** At most `burst` creates and `burst` deletes (upstream syncNodes caps both at burstReplicas). */
function capBurst(actions: readonly Action[], burst: number): Action[] {
  const counts = { create: 0, delete: 0 };
  return actions.filter((action) => {
    if (action.type === 'requeue') return true;
    counts[action.type]++;
    return counts[action.type] <= burst;
  });
}

/**
 * A requeue for the earliest moment a ready pod becomes available under minReadySeconds, while
 * the rollout still has old pods to replace: no event marks that moment, so without it the rollout
 * would stall (upstream requeues the DaemonSet after minReadySeconds for the same reason).
 */
function requeueForMinReady(ctx: Readonly<RolloutContext>): Action[] {
  const minReadySeconds = ctx.ds.spec?.minReadySeconds ?? 0;
  if (minReadySeconds <= 0) return [];
  const live = ctx.views.flatMap((view) => view.pods.filter((pod) => !isPodTerminating(pod)));
  const oldPodsLeft = ctx.views.some((view) => {
    const found = findUpdatedPodsOnNode(ctx.ds, view.pods, ctx.currentHash, view.node);
    return !found.ok || found.oldPod !== undefined;
  });
  if (!oldPodsLeft) return [];
  const waits = live
    .map((pod) => secondsUntilAvailable(pod, minReadySeconds, ctx.now))
    .filter((s): s is number => s !== undefined);
  if (waits.length === 0) return [];
  return [
    { type: 'requeue', afterSeconds: Math.min(...waits), reason: 'daemon pod waiting for minReadySeconds' },
  ];
}
