/**
 * The `node` step: make one node right for every managed DaemonSet (pipeline design decision 6),
 * with a fixed number of reads for the node whatever the number of DaemonSets, so a node joining a
 * cluster with N DaemonSets costs about N + 4 requests.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { isControlledBy } from '../core/controller-ref.ts';
import { NODE_LABEL, nodeLabelValue, targetNodeName } from '../core/daemon-pod.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import { planPair } from '../core/pair-plan.ts';
import type { NodeMessage, PairMessage } from '../messages/work-message.ts';
import { executeActions } from './action-executor.ts';
import { isActionable } from './actionable.ts';
import { terminationWaitSeconds } from './pair-waits.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import { reconcilePair } from './reconcile-pair.ts';
import { requeuedMessage } from './requeue-envelope.ts';
import { currentRevisionHashes } from './revision-hash.ts';
import { emptyReport, type StepReport, sumReports } from './step-report.ts';

/**
 * The pods that may belong to DaemonSets on `nodeName`: those bound to it, and those everynode made
 * for it that the scheduler has not bound yet (labelled `everynode.dev/node`). Both LISTs may be
 * served from the watch cache: a pod they miss makes a create that fails with 409 AlreadyExists
 * (deterministic names), a stale pod a delete that fails its preconditions.
 */
async function podsForNode(deps: PipelineDeps, nodeName: string): Promise<V1Pod[]> {
  const [bound, pending] = await Promise.all([
    deps.kube.listPods({ fieldSelector: `spec.nodeName=${nodeName}`, allowStale: true }),
    deps.kube.listPods({
      labelSelector: `${NODE_LABEL}=${nodeLabelValue(nodeName)}`,
      fieldSelector: 'spec.nodeName=',
      allowStale: true,
    }),
  ]);
  const byUid = new Map<string, V1Pod>();
  for (const pod of [...bound.items, ...pending.items]) byUid.set(pod.metadata?.uid ?? '', pod);
  return [...byUid.values()].filter((pod) => targetNodeName(pod) === nodeName);
}

/** What one pair on the node needs. */
interface NodePair {
  readonly ds: DaemonSet;
  readonly node: V1Node | undefined;
  readonly pods: V1Pod[];
  readonly currentHash: string;
}

/**
 * Reconciles every managed DaemonSet on the node `message` names: one LIST of DaemonSets (watch
 * cache), one GET of the node, the node's pods (two LISTs), the revision hashes (cached, else one
 * LIST per namespace), then each pair planned and executed directly. A pair whose delete meets a
 * Conflict is handed to the pair step (fresh read). A node that is gone gets its daemon pods deleted.
 */
export async function reconcileNode(deps: PipelineDeps, message: Readonly<NodeMessage>): Promise<StepReport> {
  const nodeName = message.node.name;
  const [daemonSets, node, pods] = await Promise.all([
    deps.kube.listDaemonSets({ allowStale: true }),
    deps.kube.getNode(nodeName),
    podsForNode(deps, nodeName),
  ]);
  if (node !== undefined) deps.cache.putRecentNodes([node], deps.clock().getTime());
  const managed = daemonSets.items.filter(isActionable);
  const hashes = await currentRevisionHashes(deps, managed);
  const reports: StepReport[] = [];
  for (const [index, ds] of managed.entries()) {
    const ownPods = pods.filter((pod) => isControlledBy(pod, ds));
    const pair = { ds, node, pods: ownPods, currentHash: hashes[index] ?? '' };
    reports.push(await reconcileNodePair(deps, message, pair));
  }
  return sumReports(...reports);
}

async function reconcileNodePair(
  deps: PipelineDeps,
  message: Readonly<NodeMessage>,
  pair: Readonly<NodePair>,
): Promise<StepReport> {
  const { ds, node, pods, currentHash } = pair;
  const nodeName = message.node.name;
  const now = deps.clock();
  const actions = planPair({ ds, node, pods, currentHash, now, nodeName });
  if (actions.length === 0 && !pods.some((pod) => pod.metadata?.deletionTimestamp)) return emptyReport();
  const result = await executeActions(deps, ds, actions, { pods });
  deps.cache.putPairSeen(`${ds.metadata?.uid ?? ''}/${nodeName}`, undefined, result.created);
  const pairMessage = pairMessageOf(ds, message);
  if (result.conflict) return sumReports(result.report, await reconcilePair(deps, pairMessage));
  const termination = terminationWaitSeconds({ ds, node, pods, actions, now, attempt: 0 });
  const wait = minWait(result.requeueAfterSeconds, termination);
  if (wait === undefined) return result.report;
  await deps.requeue.requeue(requeuedMessage(pairMessage, `pair waits ${wait}s`, now), wait);
  return sumReports(result.report, { ...emptyReport(), requeues: 1 });
}

function minWait(...waits: (number | undefined)[]): number | undefined {
  const defined = waits.filter((wait): wait is number => wait !== undefined);
  return defined.length > 0 ? Math.min(...defined) : undefined;
}

/** The pair message for `ds` on the message's node, with the node message's cause. */
function pairMessageOf(ds: Readonly<DaemonSet>, message: Readonly<NodeMessage>): PairMessage {
  const meta = ds.metadata ?? {};
  return {
    v: 1,
    kind: 'pair',
    cause: message.cause,
    daemonSet: { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
    node: { name: message.node.name },
  };
}
