/**
 * The scheduler's decision for one pending pod, as data: which node it goes to, or why none fits.
 * Ports the filter plugins of kube-scheduler's default profile that everynode's pods meet, in the
 * order the profile runs them (pkg/scheduler/apis/config/v1/default_plugins.go): NodeUnschedulable,
 * NodeName, TaintToleration, NodeAffinity, (NodePorts, left out,) NodeResourcesFit — and the
 * NodeAffinity PreFilter that narrows a pod pinned with `matchFields metadata.name In [...]` to
 * those nodes, which is what makes daemon pods cheap to place among 10,000 nodes.
 */
import type { V1Node, V1PodSpec, V1Taint } from '@kubernetes/client-node';
import { nodeMatchesRequiredAffinity } from '../../core/node-affinity.ts';
import { toleratesTaint, untoleratedTaints } from '../../core/tolerations.ts';
import { NO_RESOURCES, type NodeAllocatable, nodeAllocatable, podRequests } from '../pod-requests.ts';
import { type FitRejectedNode, fitErrorMessage, preemptionMessage } from './fit-error.ts';
import { insufficientResources, type NodeRequested } from './node-fit.ts';
import { type CountedPod, podPriority } from './node-usage.ts';

/** Where a pod goes: a node name, or the PodScheduled=False message kube-scheduler would write. */
export type PlacementDecision = { readonly node: string } | { readonly unschedulable: string };

/** The nodes a placement may look at: by name, and all of them in a stable order. */
export interface NodeCandidates {
  get(name: string): Readonly<V1Node> | undefined;
  all(): Iterable<Readonly<V1Node>>;
  readonly size: number;
}

/** Upstream nodeunschedulable.ErrReasonUnschedulable. */
const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
/** Upstream nodeaffinity.ErrReasonPod. */
const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
/** Upstream nodename.ErrReason. */
const REASON_NODE_NAME = "node(s) didn't match the requested node name";
/** Upstream nodeaffinity.errReasonConflict. */
const REASON_CONFLICT = 'pod affinity terms conflict';
/** Upstream schedule_one.go: status of nodes a PreFilter result left out. */
const REASON_PREFILTERED = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

type PodSpecView = Readonly<
  Pick<V1PodSpec, 'nodeName' | 'nodeSelector' | 'affinity' | 'tolerations' | 'priority'> &
    Partial<Pick<V1PodSpec, 'containers' | 'initContainers' | 'overhead'>>
>;

/**
 * Why `node` cannot take the pod, as kube-scheduler words it, or undefined when it fits. The first
 * failing filter wins, as in framework.RunFilterPlugins.
 */
export function filterNode(spec: PodSpecView, node: Readonly<V1Node>): string | undefined {
  // nodeunschedulable.Filter: a cordoned node takes only pods tolerating its taint (daemon pods do).
  const toleratesCordon = (spec.tolerations ?? []).some((t) =>
    toleratesTaint(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }),
  );
  if (node.spec?.unschedulable && !toleratesCordon) return REASON_UNSCHEDULABLE;
  if (spec.nodeName && spec.nodeName !== node.metadata?.name) return REASON_NODE_NAME;
  // tainttoleration.Filter: the first untolerated NoSchedule/NoExecute taint in node order.
  const [taint] = untoleratedTaints(node.spec?.taints, spec.tolerations, ['NoSchedule', 'NoExecute']);
  if (taint) return untoleratedTaintReason(taint);
  if (!nodeMatchesRequiredAffinity(node, spec)) return REASON_AFFINITY;
  return undefined;
}

function untoleratedTaintReason(taint: Readonly<V1Taint>): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/**
 * The node names a pod's required affinity pins it to through `matchFields metadata.name In`, or
 * undefined when some term leaves every node eligible (upstream NodeAffinity.PreFilter: names
 * intersected within a term, unioned across terms).
 */
export function pinnedNodeNames(spec: PodSpecView): Set<string> | undefined {
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return undefined;
  const names = new Set<string>();
  for (const term of terms) {
    let termNames: Set<string> | undefined;
    for (const field of term.matchFields ?? []) {
      if (field.key !== 'metadata.name' || field.operator !== 'In') continue;
      const values = new Set(field.values ?? []);
      termNames = termNames ? new Set([...termNames].filter((n) => values.has(n))) : values;
    }
    if (!termNames) return undefined;
    for (const name of termNames) names.add(name);
  }
  return names;
}

/** What the scheduler cache knows of the pods bound to each node. */
export interface BoundPods {
  requested(node: string): NodeRequested;
  podsOn(node: string): Iterable<CountedPod>;
}

/**
 * Places a pod: the feasible node with the fewest pods, ties broken by name — a deterministic
 * stand-in for the scoring plugins — or the FitError message with the preemption part
 * DefaultPreemption adds (fit-error.ts). After the filters above, NodeResourcesFit (node-fit.ts)
 * checks the pod's requests against the node's allocatable less what `bound` pods request.
 */
export function placePod(spec: PodSpecView, nodes: NodeCandidates, bound: BoundPods): PlacementDecision {
  if (nodes.size === 0) return { unschedulable: 'no nodes available to schedule pods' };
  const pinned = pinnedNodeNames(spec);
  if (pinned && pinned.size === 0)
    return { unschedulable: notHelpful(nodes.size, new Map([[REASON_CONFLICT, nodes.size]])) };
  const request = podRequests({ spec });
  const reasons = new Map<string, number>();
  const rejectedByFit: FitRejectedNode[] = [];
  let best: { name: string; count: number } | undefined;
  let considered = 0;
  for (const node of pinned ? pinnedNodes(pinned, nodes) : nodes.all()) {
    considered += 1;
    const name = node.metadata?.name ?? '';
    const reason = filterNode(spec, node);
    if (reason) {
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      continue;
    }
    const requested = bound.requested(name);
    const allocatable = allocatableOfNode(node);
    const misfit = insufficientResources(request, requested, allocatable);
    if (misfit.length > 0) {
      for (const r of misfit) reasons.set(r, (reasons.get(r) ?? 0) + 1);
      rejectedByFit.push({ allocatable, requested, pods: bound.podsOn(name) });
      continue;
    }
    if (!best || requested.pods < best.count || (requested.pods === best.count && name < best.name))
      best = { name, count: requested.pods };
  }
  if (best) return { node: best.name };
  if (considered < nodes.size) reasons.set(REASON_PREFILTERED, nodes.size - considered);
  const preemptor = { request, priority: podPriority(spec) };
  const preemption = preemptionMessage(nodes.size, preemptor, rejectedByFit);
  return { unschedulable: fitErrorMessage(nodes.size, reasons, preemption) };
}

function* pinnedNodes(names: ReadonlySet<string>, nodes: NodeCandidates): Iterable<Readonly<V1Node>> {
  for (const name of [...names].sort()) {
    const node = nodes.get(name);
    if (node) yield node;
  }
}

/** A FitError where preemption helps on no node. */
function notHelpful(total: number, reasons: ReadonlyMap<string, number>): string {
  return fitErrorMessage(
    total,
    reasons,
    preemptionMessage(total, { request: NO_RESOURCES, priority: 0 }, []),
  );
}

/** Allocatable by node object: stored nodes are frozen, so a node's parse serves until it changes. */
const allocatableCache = new WeakMap<Readonly<V1Node>, NodeAllocatable>();

function allocatableOfNode(node: Readonly<V1Node>): NodeAllocatable {
  let allocatable = allocatableCache.get(node);
  if (!allocatable) {
    allocatable = nodeAllocatable(node);
    allocatableCache.set(node, allocatable);
  }
  return allocatable;
}
