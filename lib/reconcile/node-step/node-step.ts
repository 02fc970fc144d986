/**
 * The `node` step: make one node right for every managed DaemonSet
 * (docs/design.md, 16. The node step), with a fixed number of reads for the node whatever the
 * number of DaemonSets — none when the relay's hints can be planned from — so a node joining a
 * cluster with N DaemonSets costs its N pod creates and their Events.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { type Action, deletesBecauseOfNode } from '../../core/action.ts';
import { isActionable } from '../../core/actionable.ts';
import { isControlledBy } from '../../core/controller-ref.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { gateKeysFor } from '../../core/node-gates/gate-declaration.ts';
import { nodeSizingOf } from '../../core/node-sizing/node-sizing.ts';
import { planPair } from '../../core/pair-plan.ts';
import { terminationWaitSeconds } from '../../core/pair-waits.ts';
import { timestampMillis } from '../../core/pod-availability.ts';
import { fromJson } from '../../kube/codec/object-codec.ts';
import { readsInsteadOf } from '../../messages/hint-caps.ts';
import type { DaemonSetVersion, NodeHints } from '../../messages/node-hints.ts';
import { nodeFromHint, podFromHint } from '../../messages/pair-hints.ts';
import { withRequeueCause } from '../../messages/requeue-envelope.ts';
import type { NodeMessage, PairMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { executeActions } from '../effects/action-executor.ts';
import { mapConcurrent } from '../effects/map-concurrent.ts';
import { emptyReport, type StepReport, sumReports } from '../effects/step-report.ts';
import { reconcileNodeGates } from '../node-gates/gate-step.ts';
import { HINT_MAX_AGE_SECONDS, hintsAreFresh, nodeVersion } from '../reads/pair-reader.ts';
import { podTargets } from '../reads/pod-target.ts';
import { podsBoundTo, withUnboundPods } from './node-pods.ts';

/**
 * The pair step, which the node step hands a pair to when a write of it met a Conflict: steps never
 * import each other, so the handler that runs the node step passes it in.
 */
export type PairStep = (deps: ReconcileDeps, message: Readonly<PairMessage>) => Promise<StepReport>;

/** What one pair on the node needs, and its plan. */
interface NodePair {
  readonly ds: DaemonSet;
  readonly node: V1Node | undefined;
  readonly pods: V1Pod[];
  readonly currentHash: string;
  /** The node readiness gate keys its pods tolerate: every listed DaemonSet's. */
  readonly gateKeys: readonly string[];
  readonly actions: Action[];
}

/** The node's state as a step plans from it. */
interface NodeState {
  /** Every DaemonSet of the managed kind, actionable or not. */
  readonly daemonSets: readonly DaemonSet[];
  /** Undefined when the node is gone. */
  readonly node: V1Node | undefined;
  /** The pods on the node (any controller), for the DaemonSets' own to be picked from. */
  readonly podsOf: (ds: Readonly<DaemonSet>) => V1Pod[];
  /** `node` is the answer to a GET of this step, not a hint. */
  readonly nodeConfirmed: boolean;
  /** `node` shows its readiness gate state: read, or hinted with it (`node-gate-hint.ts`). */
  readonly gateStateKnown: boolean;
}

/**
 * The node as the API server has it: one LIST of DaemonSets (watch cache), one GET of the node, one
 * LIST of the node's pods (and of its unbound ones when the node is gone).
 */
async function readNodeState(deps: ReconcileDeps, nodeName: string): Promise<NodeState> {
  const [daemonSets, node, bound] = await Promise.all([
    listDaemonSets(deps),
    deps.ports.kube.getNode(nodeName),
    podsBoundTo(deps, nodeName),
  ]);
  if (node !== undefined) deps.memory.objects.putRecentNodes([node], deps.clock().getTime());
  const pods = node === undefined ? await withUnboundPods(deps, nodeName, bound) : bound;
  return {
    daemonSets,
    node,
    podsOf: (ds) => pods.filter((pod) => isControlledBy(pod, ds)),
    nodeConfirmed: true,
    gateStateKnown: true,
  };
}

/**
 * Every DaemonSet of the managed kind, from one LIST served from the watch cache (a DaemonSet
 * created since gets its own step), each kept in the process cache for the hints that name it.
 */
async function listDaemonSets(deps: ReconcileDeps): Promise<DaemonSet[]> {
  const listed = await deps.ports.kube.listDaemonSets({ allowStale: true });
  const readAt = deps.clock().getTime();
  const live = listed.items.filter((ds) => !deps.memory.objects.isGone(ds.metadata?.uid ?? ''));
  for (const ds of live) deps.memory.objects.putDaemonSet(ds, readAt);
  return live;
}

/**
 * The hinted DaemonSets from the process cache, else from the hints themselves; one LIST of them all
 * when any is missing. The hinted revision hashes go to the cache with the DaemonSets they are of.
 */
async function hintedDaemonSets(
  deps: ReconcileDeps,
  hints: Readonly<NodeHints>,
): Promise<readonly DaemonSet[]> {
  // A DaemonSet this process knows to be gone or being deleted gets no pod, and needs no LIST.
  const live = hints.daemonSets.filter((entry) => !deps.memory.objects.isGone(entry.uid));
  const found = live.map(
    (entry) =>
      deps.memory.objects.daemonSet(entry.uid, entry.resourceVersion) ??
      daemonSetFromHint(deps, entry, timestampMillis(hints.observedAt) ?? 0),
  );
  const daemonSets = found.every((ds) => ds !== undefined) ? found : await listDaemonSets(deps);
  for (const { uid, resourceVersion, revisionHash } of hints.daemonSets) {
    const ds = daemonSets.find(
      (d) => d.metadata?.uid === uid && d.metadata.resourceVersion === resourceVersion,
    );
    if (ds !== undefined && revisionHash !== undefined) deps.memory.objects.putRevisionHash(ds, revisionHash);
  }
  return daemonSets;
}

/**
 * The DaemonSet a hint carries whole, cached as of `observedAt` (when the relay knew it); undefined
 * when it carries none, another one, or one this process knows to be gone.
 */
function daemonSetFromHint(
  deps: ReconcileDeps,
  entry: Readonly<DaemonSetVersion>,
  observedAt: number,
): DaemonSet | undefined {
  if (entry.object === undefined || deps.memory.objects.isGone(entry.uid)) return undefined;
  const ds = fromJson<DaemonSet>(structuredClone(entry.object), 'V1DaemonSet');
  if (ds.metadata?.uid !== entry.uid || ds.metadata.resourceVersion !== entry.resourceVersion)
    return undefined;
  deps.memory.objects.putDaemonSet(ds, observedAt);
  return ds;
}

/**
 * The node as the relay's hints describe it (`node-hints.ts`), or undefined when they cannot be
 * planned from: older than {@link HINT_MAX_AGE_SECONDS}, naming a terminating pod, whose end is
 * what its pair waits for, or a pod whose hint was `capped` (`hint-caps.ts`: labels left out).
 */
async function hintedNodeState(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
): Promise<NodeState | undefined> {
  const hints = message.hints;
  if (hints === undefined || !hintsAreFresh(hints.observedAt, deps.clock())) return undefined;
  if (hints.pods.some(readsInsteadOf)) return undefined;
  const daemonSets = await hintedDaemonSets(deps, hints);
  const nodeName = message.node.name;
  // Hinted pods carry no namespace: a DaemonSet's pods are in its own.
  const podsOf = (ds: Readonly<DaemonSet>): V1Pod[] =>
    hints.pods
      .map((pod) => podFromHint(pod, ds.metadata?.namespace ?? 'default', nodeName))
      .filter((pod) => isControlledBy(pod, ds));
  // A node hinted without its allocatable (an older sender's) is read when a DaemonSet sizes its pods.
  if (hints.node.allocatable === undefined && daemonSets.some((ds) => nodeSizingOf(ds).length)) return;
  const node = nodeFromHint(hints.node);
  return { daemonSets, node, podsOf, nodeConfirmed: false, gateStateKnown: hints.node.gate !== undefined };
}

/** Each DaemonSet of `managed` (whose revision hashes are `hashes`) on the node of `state`, planned at `now`. */
function planPairs(
  state: Readonly<NodeState>,
  managed: readonly DaemonSet[],
  hashes: readonly string[],
  nodeName: string,
  now: Date,
): NodePair[] {
  // Every listed DaemonSet's gate keys: the same for each of them, whose own key is among them.
  const first = state.daemonSets[0];
  const gateKeys = first === undefined ? [] : gateKeysFor(first, state.daemonSets);
  return managed.map((ds, index) => {
    const pods = state.podsOf(ds);
    const currentHash = hashes[index] ?? '';
    const actions = planPair({ ds, node: state.node, pods, currentHash, now, nodeName, gateKeys });
    return { ds, node: state.node, pods, currentHash, gateKeys, actions };
  });
}

/**
 * The pairs planned on the node's current version (docs/design.md, 9. Hints, and why a stale hint
 * is safe): when the node came from hints and a plan would delete a pod because of the node, the
 * node is asked of the API server (one GET for every pair) and the pairs planned again if its
 * resourceVersion, or its existence, differs — a hint may show a taint or label the node has lost
 * since, which no pod precondition sees. A node joining plans creates only, and pays nothing.
 */
async function pairsOnCurrentNode(
  deps: ReconcileDeps,
  nodeName: string,
  state: Readonly<NodeState>,
  managed: readonly DaemonSet[],
  hashes: readonly string[],
): Promise<NodePair[]> {
  const now = deps.clock();
  const pairs = planPairs(state, managed, hashes, nodeName, now);
  if (state.nodeConfirmed || !pairs.some((pair) => deletesBecauseOfNode(pair.actions))) return pairs;
  const node = await deps.ports.kube.getNode(nodeName);
  if (node !== undefined) deps.memory.objects.putRecentNodes([node], deps.clock().getTime());
  if (nodeVersion(node) === nodeVersion(state.node)) return pairs;
  return planPairs({ ...state, node }, managed, hashes, nodeName, now);
}

/**
 * Reconciles every managed DaemonSet on the node `message` names, planned from the relay's hints
 * when the message has usable ones (no request before the writes when they carry the DaemonSets and
 * their revision hashes, or the process has them cached), else read (one LIST of DaemonSets, one GET
 * of the node, one LIST of its pods); then the revision hashes (hinted or cached, else one LIST per
 * namespace), then each pair planned — a hinted node confirmed by one GET before a delete because
 * of it — and executed directly, concurrently. A pair whose delete meets a Conflict is handed to
 * the pair step (fresh read). A node that is gone gets its daemon pods deleted, the unbound ones
 * included. Then the node's readiness gates (node-gates/gate-step.ts), when a DaemonSet gates or the node
 * shows gate state of ours.
 */
export async function reconcileNode(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
  pairStep: PairStep,
): Promise<StepReport> {
  const state = (await hintedNodeState(deps, message)) ?? (await readNodeState(deps, message.node.name));
  const current = state.daemonSets.filter(isActionable);
  const { daemonSets, hashes } = await podTargets(deps, current);
  const pairs = await pairsOnCurrentNode(deps, message.node.name, state, daemonSets, hashes);
  // The pairs are independent (one per DaemonSet): made right concurrently, the budget pacing them.
  const reports = await mapConcurrent(pairs, (pair) => reconcileNodePair(deps, message, pair, pairStep));
  const deleting = new Set(
    pairs.flatMap((pair) => pair.actions.flatMap((a) => (a.type === 'delete' ? [a.uid] : []))),
  );
  const gates = await reconcileNodeGates(deps, message, { ...state, deleting });
  return sumReports(...reports, gates);
}

async function reconcileNodePair(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
  pair: Readonly<NodePair>,
  pairStep: PairStep,
): Promise<StepReport> {
  const { ds, node, pods, actions, gateKeys } = pair;
  const nodeName = message.node.name;
  const now = deps.clock();
  if (actions.length === 0 && !pods.some((pod) => pod.metadata?.deletionTimestamp)) return emptyReport();
  const result = await executeActions(deps, ds, actions, { pods });
  deps.memory.expectations.putPairSeen(`${ds.metadata?.uid ?? ''}/${nodeName}`, undefined, result.created);
  const pairMessage = pairMessageOf(ds, message);
  if (result.conflict) return sumReports(result.report, await pairStep(deps, pairMessage));
  const termination = terminationWaitSeconds({ ds, node, pods, actions, now, attempt: 0, gateKeys });
  const wait = minWait(result.requeueAfterSeconds, termination);
  if (wait === undefined) return result.report;
  await deps.ports.requeue.requeue(withRequeueCause(pairMessage, `pair waits ${wait}s`, now), wait);
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
