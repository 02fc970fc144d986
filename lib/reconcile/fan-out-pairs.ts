/**
 * The DaemonSet step's fan-out (docs/design.md, 15. The DaemonSet step): the pairs that need work,
 * found from one LIST of nodes and one LIST of pods, sent as pair messages with hints so that each
 * costs one API request, at most `burstReplicas` creates and deletes in flight (upstream syncNodes
 * caps a sync at burstReplicas; the rest waits for the next run).
 */
import { createHash } from 'node:crypto';
import type { Action } from '../core/action.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import { rolloutExtensionsOf } from '../core/extensions.ts';
import type { NodeView } from '../core/node-view.ts';
import { compareResourceVersions } from '../kube/resource-version.ts';
import type { MessageCause } from '../messages/message-cause.ts';
import { nodeHintOf, type PairHints, podHintOf } from '../messages/pair-hints.ts';
import type { PairMessage } from '../messages/work-message.ts';
import type { OutgoingWork } from '../queue/work-senders.ts';
import { pairKey } from './expectations.ts';
import { planGatedPair } from './gate-placement.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';

/** A pair that needs work, with what its plan would do. */
interface Candidate {
  readonly view: NodeView;
  readonly actions: Action[];
  /** The SQS de-duplication id (changes with the time window). */
  readonly deduplicationId: string;
  /** What the process remembers the fan-out by (the same intent, whatever the window). */
  readonly memoryKey: string;
}

/** What the fan-out sent and whether pairs were left for the next run. */
export interface FanOutResult {
  readonly sent: number;
  /** Pairs needing work were left out because of the burst cap: run the step again soon. */
  readonly capped: boolean;
}

/** What the fan-out works from. */
export interface FanOutState {
  readonly ds: Readonly<DaemonSet>;
  readonly views: readonly NodeView[];
  /** The node readiness gate keys the DaemonSet's pods tolerate (gate-placement.ts). */
  readonly gateKeys: readonly string[];
  readonly currentHash: string;
  readonly now: Date;
  readonly cause: MessageCause;
  /** Nodes the step itself acted on this run (the rolling-update step): left to the next run. */
  readonly skip: ReadonlySet<string>;
  /** What the step observed: the resourceVersions of its LISTs. */
  readonly observation: string;
  /** The resourceVersion of the node LIST (older than the pod LIST when it was shared). */
  readonly nodesResourceVersion: string;
  /** When the step began those LISTs (ms since the epoch). */
  readonly listedAt: number;
}

/**
 * The FIFO de-duplication id of a fan-out: the intent (see memoryKeyOf) and the observation it was
 * planned from (the resourceVersions of the node and pod LISTs), so a step repeated on the same
 * observation (another process, a redelivered message) sends nothing new, while anything that
 * changed is new work. Deliberately not the intent alone: a pod created by a fan-out and then
 * deleted or released leaves the pair needing exactly the same create, which must not wait five
 * minutes for SQS de-duplication to expire; the process's memory of pairs in flight
 * (Expectations.fannedOut) is what keeps consecutive steps from re-sending pending work.
 */
function deduplicationIdOf(memoryKey: string, observation: string): string {
  return `fanout:${createHash('sha256').update(`${memoryKey}#${observation}`).digest('hex')}`;
}

/** The intent of a pair's plan: its DaemonSet and generation, the node, what it creates and deletes. */
function memoryKeyOf(ds: Readonly<DaemonSet>, nodeName: string, actions: readonly Action[]): string {
  const intent = actions.map((a) =>
    a.type === 'create'
      ? `c:${a.pod.metadata?.name}`
      : a.type === 'delete'
        ? `d:${a.uid}@${a.resourceVersion}`
        : 'r',
  );
  return JSON.stringify([ds.metadata?.uid, ds.metadata?.generation, nodeName, intent]);
}

function hintsFor(state: Readonly<FanOutState>, view: Readonly<NodeView>): PairHints {
  const meta = state.ds.metadata ?? {};
  return {
    observedAt: state.now.toISOString(),
    daemonSet: {
      resourceVersion: meta.resourceVersion ?? '',
      ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
      revisionHash: state.currentHash,
    },
    node: view.node ? nodeHintOf(view.node) : null,
    pods: view.pods.map(podHintOf),
  };
}

function messageFor(state: Readonly<FanOutState>, view: Readonly<NodeView>): PairMessage {
  const meta = state.ds.metadata ?? {};
  return {
    v: 1,
    kind: 'pair',
    cause: state.cause,
    daemonSet: { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
    node: { name: view.name },
    hints: hintsFor(state, view),
  };
}

/**
 * The pairs whose plan is not empty, in node order. Every other pair's remembered fan-out is
 * settled: the step sees it in another state, so its message was acted upon.
 */
function candidatesOf(deps: ReconcileDeps, state: Readonly<FanOutState>): Candidate[] {
  const { ds, currentHash, now } = state;
  return state.views.flatMap((view) => {
    if (state.skip.has(view.name) || newerThanNodeList(view, state.nodesResourceVersion)) return [];
    const pair = { ds, node: view.node, pods: view.pods, currentHash, now, nodeName: view.name };
    const actions = planGatedPair(pair, state.gateKeys);
    const memoryKey = actions.length === 0 ? undefined : memoryKeyOf(ds, view.name, actions);
    deps.expectations.settleFanOut(pairKey(ds.metadata?.uid ?? '', view.name), memoryKey);
    if (memoryKey === undefined) return [];
    return [{ view, actions, memoryKey, deduplicationId: deduplicationIdOf(memoryKey, state.observation) }];
  });
}

/**
 * True for a node missing from the node LIST while one of its pods changed after that LIST: the
 * node may have joined since (its daemon pods made by the node step), so its absence says nothing.
 * A node that really left sends its own `node` message, whose step deletes its daemon pods.
 */
function newerThanNodeList(view: Readonly<NodeView>, nodesResourceVersion: string): boolean {
  if (view.node !== undefined) return false;
  return view.pods.some(
    (pod) => (compareResourceVersions(pod.metadata?.resourceVersion ?? '', nodesResourceVersion) ?? 1) > 0,
  );
}

const countOf = (actions: readonly Action[], type: Action['type']) =>
  actions.filter((a) => a.type === type).length;

/**
 * Sends a hinted pair message for every pair whose plan is not empty, in node order, at most
 * `burstReplicas` creates and deletes per step (docs/design.md, 15. The DaemonSet step: upstream
 * syncNodes caps one sync at burstReplicas); pairs this process fanned out with the same intent and
 * had not handled when the step began listing are in flight, and are neither sent again nor
 * counted; so are the replacements of pods the rolling update deleted, which their deletion event
 * brings.
 */
export async function fanOutPairs(deps: ReconcileDeps, state: Readonly<FanOutState>): Promise<FanOutResult> {
  const burst = rolloutExtensionsOf(state.ds).burstReplicas;
  const nowMs = deps.clock().getTime();
  const sent: Candidate[] = [];
  let [creates, deletes, capped] = [0, 0, false];
  for (const candidate of candidatesOf(deps, state)) {
    const key = pairKey(state.ds.metadata?.uid ?? '', candidate.view.name);
    if (deps.expectations.fannedOut(key, candidate.memoryKey, nowMs, state.listedAt)) continue;
    const createsOnly = candidate.actions.every((a) => a.type === 'create');
    if (createsOnly && deps.expectations.awaitingReplacement(key, nowMs, state.listedAt)) continue;
    const c = countOf(candidate.actions, 'create');
    const d = countOf(candidate.actions, 'delete');
    if ((c > 0 && creates + c > burst) || (d > 0 && deletes + d > burst)) {
      capped = true;
      break;
    }
    [creates, deletes] = [creates + c, deletes + d];
    sent.push(candidate);
  }
  await deps.workQueue.send(
    sent.map(
      (c): OutgoingWork => ({ message: messageFor(state, c.view), deduplicationId: c.deduplicationId }),
    ),
  );
  for (const c of sent)
    deps.expectations.markFannedOut(pairKey(state.ds.metadata?.uid ?? '', c.view.name), c.memoryKey, nowMs);
  return { sent: sent.length, capped };
}
