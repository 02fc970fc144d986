/**
 * How kube-scheduler words a pod that fits nowhere (framework.FitError.Error), and what its
 * DefaultPreemption PostFilter adds (pkg/scheduler/framework/preemption: findCandidates,
 * nodesWherePreemptionMightHelp, and default_preemption.go SelectVictimsOnNode): "0/N nodes are
 * available: <count> <reason>, …." with the counts of every node's reasons sorted as strings, then
 * " preemption: 0/N nodes are available: …." from a dry run of preemption on every node.
 *
 * The dry run: a node a filter other than NodeResourcesFit rejected (UnschedulableAndUnresolvable,
 * and every node a PreFilter left out) is one where "Preemption is not helpful for scheduling"; on
 * a node NodeResourcesFit rejected, the pods of lower priority than the incoming one are the
 * potential victims — none: "No preemption victims found for incoming pod"; else the pod is fit
 * again against the node without them, and the reasons it still does not fit are that node's. A node
 * where it would fit is a preemption candidate: upstream then preempts, and the message has no
 * preemption part. The simulated scheduler never evicts victims (its pods are everynode's, of one
 * priority); it only words the outcome.
 */
import type { NodeAllocatable, ResourceAmounts } from '../pod-requests.ts';
import { insufficientResources, type NodeRequested } from './node-fit.ts';
import type { CountedPod } from './node-usage.ts';

/** Upstream preemption.go: status of nodes whose rejection preemption cannot change. */
export const REASON_PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
/** Upstream default_preemption.go SelectVictimsOnNode with no pod of lower priority. */
export const REASON_NO_VICTIMS = 'No preemption victims found for incoming pod';

/** A node NodeResourcesFit rejected, with what the dry run needs of it. */
export interface FitRejectedNode {
  readonly allocatable: NodeAllocatable;
  readonly requested: NodeRequested;
  readonly pods: Iterable<CountedPod>;
}

/** The incoming pod as preemption sees it. */
export interface Preemptor {
  readonly request: ResourceAmounts;
  readonly priority: number;
}

/** "0/N nodes are available: <histogram>." — the reasons' counts sorted as strings (sort.Strings). */
export function nodesAvailableMessage(total: number, reasons: ReadonlyMap<string, number>): string {
  const histogram = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${total} nodes are available: ${histogram.join(', ')}.`;
}

/** The whole FitError message: the filters' histogram, then the preemption part when there is one. */
export function fitErrorMessage(
  total: number,
  reasons: ReadonlyMap<string, number>,
  preemption: string | undefined,
): string {
  const filters = nodesAvailableMessage(total, reasons);
  return preemption ? `${filters} ${preemption}` : filters;
}

/**
 * "preemption: 0/N nodes are available: …." for `total` nodes of which `rejectedByFit` are the
 * ones NodeResourcesFit rejected, or undefined when preemption would find a candidate.
 */
export function preemptionMessage(
  total: number,
  preemptor: Preemptor,
  rejectedByFit: readonly FitRejectedNode[],
): string | undefined {
  const reasons = new Map<string, number>();
  const count = (reason: string, n = 1) => reasons.set(reason, (reasons.get(reason) ?? 0) + n);
  if (total > rejectedByFit.length) count(REASON_PREEMPTION_NOT_HELPFUL, total - rejectedByFit.length);
  for (const node of rejectedByFit) {
    const stillMisfit = afterVictimsRemoved(preemptor, node);
    if (stillMisfit === undefined) count(REASON_NO_VICTIMS);
    else if (stillMisfit.length === 0) return undefined;
    else for (const reason of stillMisfit) count(reason);
  }
  return `preemption: ${nodesAvailableMessage(total, reasons)}`;
}

/** Why the pod misfits `node` without its lower-priority pods; undefined when there are none. */
function afterVictimsRemoved(preemptor: Preemptor, node: FitRejectedNode): string[] | undefined {
  let { cpu, memory, ephemeralStorage, pods } = node.requested;
  let victims = 0;
  for (const pod of node.pods) {
    if (pod.priority >= preemptor.priority) continue;
    victims += 1;
    cpu -= pod.requests.cpu;
    memory -= pod.requests.memory;
    ephemeralStorage -= pod.requests.ephemeralStorage;
    pods -= 1;
  }
  if (victims === 0) return undefined;
  return insufficientResources(preemptor.request, { cpu, memory, ephemeralStorage, pods }, node.allocatable);
}
