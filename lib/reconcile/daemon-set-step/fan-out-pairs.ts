/**
 * The DaemonSet step's fan-out (docs/design.md, 15. The DaemonSet step): the pairs that need work,
 * found from one LIST of nodes and one LIST of pods, sent as pair messages with hints so that each
 * costs one API request, with at most `burstReplicas` creates and `burstReplicas` deletes
 * outstanding per DaemonSet (upstream syncNodes caps a sync at burstReplicas and waits for its
 * expectations before the next). What the cap holds back is released by the pair steps of the
 * process as they act on the pairs sent before (fan-out-feed.ts), not by the next DaemonSet step.
 */
import type { Action } from '../../core/action.ts';
import { rolloutExtensionsOf } from '../../core/extensions.ts';
import type { NodeView } from '../../core/node-view.ts';
import { planPair } from '../../core/pair-plan.ts';
import { compareResourceVersions } from '../../kube/resource-version.ts';
import type { OutgoingWork } from '../../queue/work-senders.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { isRefused } from '../effects/template-refusal.ts';
import { type PairLoad, pairKey } from '../memory/expectations.ts';
import type { FanOutState } from '../memory/fan-out-feed.ts';
import { deduplicationIdOf, memoryKeyOf, pairMessageFor } from './fan-out-message.ts';

export type { FanOutState } from '../memory/fan-out-feed.ts';

/**
 * The fewest free places under the burst cap worth a release: sends go ten to a SendMessageBatch,
 * and a release after every single pair would walk and send one pair at a time.
 */
export const RELEASE_BATCH = 10;

/** A pair that needs work, with what its plan would do. */
interface Candidate {
  readonly view: NodeView;
  readonly actions: Action[];
  /** What the process remembers the fan-out by (the same intent, whatever the window). */
  readonly memoryKey: string;
  readonly load: PairLoad;
}

/** What the fan-out sent and whether pairs were left for later. */
export interface FanOutResult {
  readonly sent: number;
  /** Pairs may still need work beyond the burst cap: run the step again soon. */
  readonly capped: boolean;
}

const countOf = (actions: readonly Action[], type: Action['type']) =>
  actions.filter((a) => a.type === type).length;

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

/**
 * The pair's plan when it is not empty, without creates when `refused`: the API server refuses the
 * current revision's template (effects/template-refusal.ts), asked once per walk. Its remembered fan-out is settled either way:
 * seen in another state than the one it was sent for, its message was acted upon.
 */
function candidateOf(
  deps: ReconcileDeps,
  state: Readonly<FanOutState>,
  view: Readonly<NodeView>,
  refused: boolean,
): Candidate | undefined {
  if (state.skip.has(view.name) || newerThanNodeList(view, state.nodesResourceVersion)) return undefined;
  const { ds, currentHash, now, gateKeys } = state;
  const planned = planPair({
    ds,
    node: view.node,
    pods: view.pods,
    currentHash,
    now,
    nodeName: view.name,
    gateKeys,
  });
  const actions = refused ? planned.filter((a) => a.type !== 'create') : planned;
  const memoryKey = actions.length === 0 ? undefined : memoryKeyOf(ds, view.name, actions);
  deps.memory.expectations.settleFanOut(pairKey(ds.metadata?.uid ?? '', view.name), memoryKey);
  if (memoryKey === undefined) return undefined;
  return {
    view,
    actions,
    memoryKey,
    load: { creates: countOf(actions, 'create'), deletes: countOf(actions, 'delete') },
  };
}

/** Room under the burst cap for `daemonSetUid`'s creates and deletes at `nowMs`. */
function roomOf(deps: ReconcileDeps, state: Readonly<FanOutState>, nowMs: number): PairLoad {
  const burst = rolloutExtensionsOf(state.ds).burstReplicas;
  const out = deps.memory.expectations.outstanding(state.ds.metadata?.uid ?? '', nowMs);
  return { creates: burst - out.creates, deletes: burst - out.deletes };
}

/** The pairs a walk took (marked fanned out already), and where the next walk begins. */
interface Walk {
  readonly taken: Candidate[];
  readonly next: number;
  readonly exhausted: boolean;
}

/**
 * Walks the views from index `from` in node order, taking the pairs that need work within `room`,
 * until one does not fit. Pairs fanned out with the same intent and not handled before the LISTs
 * began are in flight, and so are the replacements of pods the rolling update deleted: skipped.
 * Synchronous, and marks what it takes, so two walks at once never take the same pair.
 */
function walk(
  deps: ReconcileDeps,
  state: Readonly<FanOutState>,
  from: number,
  room: PairLoad,
  nowMs: number,
): Walk {
  const uid = state.ds.metadata?.uid ?? '';
  const refused = isRefused(deps, state.ds, state.currentHash);
  const taken: Candidate[] = [];
  let [creates, deletes] = [0, 0];
  for (let index = from; index < state.views.length; index++) {
    const view = state.views[index] as NodeView;
    const candidate = candidateOf(deps, state, view, refused);
    if (candidate === undefined) continue;
    const key = pairKey(uid, view.name);
    if (deps.memory.expectations.fannedOut(key, candidate.memoryKey, nowMs, state.listedAt)) continue;
    const createsOnly = candidate.actions.every((a) => a.type === 'create');
    if (createsOnly && deps.memory.expectations.awaitingReplacement(key, nowMs, state.listedAt)) continue;
    const { creates: c, deletes: d } = candidate.load;
    if ((c > 0 && creates + c > room.creates) || (d > 0 && deletes + d > room.deletes))
      return { taken, next: index, exhausted: false };
    [creates, deletes] = [creates + c, deletes + d];
    taken.push(candidate);
    deps.memory.expectations.markFannedOut(key, candidate.memoryKey, nowMs, candidate.load);
  }
  return { taken, next: state.views.length, exhausted: true };
}

/** Sends the taken pairs; if the queue refuses them, they are not outstanding after all. */
async function send(deps: ReconcileDeps, state: Readonly<FanOutState>, taken: readonly Candidate[]) {
  if (taken.length === 0) return;
  try {
    await deps.ports.workQueue.send(
      taken.map(
        (c): OutgoingWork => ({
          message: pairMessageFor(state, c.view),
          deduplicationId: deduplicationIdOf(c.memoryKey, state.observation),
        }),
      ),
    );
  } catch (error) {
    const uid = state.ds.metadata?.uid ?? '';
    for (const c of taken) deps.memory.expectations.forgetFanOut(pairKey(uid, c.view.name));
    throw error;
  }
}

/**
 * Settles the remembered fan-outs of the DaemonSet still outstanding against the step's LISTs: a
 * pair seen in another state was acted upon (by any process), so it no longer counts against the
 * burst cap.
 */
function settleOutstanding(deps: ReconcileDeps, state: Readonly<FanOutState>): void {
  const nodes = deps.memory.expectations.outstandingNodes(state.ds.metadata?.uid ?? '');
  if (nodes.length === 0) return;
  const views = new Map(state.views.map((view) => [view.name, view]));
  const refused = isRefused(deps, state.ds, state.currentHash);
  for (const node of nodes) {
    const view = views.get(node);
    if (view !== undefined) candidateOf(deps, state, view, refused);
  }
}

/**
 * Sends a hinted pair message for the pairs whose plan is not empty, in node order, while the
 * DaemonSet's outstanding creates and deletes stay within `burstReplicas` each (docs/design.md,
 * 15. The DaemonSet step). The rest of the walk is left to the process's pair steps to release
 * ({@link releaseFanOut}), replacing what an earlier step left.
 */
export async function fanOutPairs(deps: ReconcileDeps, state: Readonly<FanOutState>): Promise<FanOutResult> {
  const uid = state.ds.metadata?.uid ?? '';
  const nowMs = deps.clock().getTime();
  settleOutstanding(deps, state);
  const { taken, next, exhausted } = walk(deps, state, 0, roomOf(deps, state, nowMs), nowMs);
  if (exhausted) deps.memory.fanOutFeeds.drop(uid);
  else deps.memory.fanOutFeeds.put(uid, state, next, nowMs);
  await send(deps, state, taken);
  return { sent: taken.length, capped: !exhausted };
}

/**
 * Releases more of the latest DaemonSet step's walk for the DaemonSet `daemonSetUid` once at least
 * {@link RELEASE_BATCH} places (or the whole cap) are free for creates and for deletes under the
 * burst cap: called after a pair step of the DaemonSet, whose pair may have been one fanned out.
 * Resolves to the pairs sent. Nothing happens without a young feed (fan-out-feed.ts) or once the
 * DaemonSet is known gone: the feed stands in for the DaemonSet step that planned it, so the same
 * guards keep a stale plan harmless (deterministic pod names, delete preconditions, hints refused
 * when their generation or age is wrong).
 */
export async function releaseFanOut(deps: ReconcileDeps, daemonSetUid: string): Promise<number> {
  const nowMs = deps.clock().getTime();
  const feed = deps.memory.fanOutFeeds.get(daemonSetUid, nowMs);
  if (feed === undefined) return 0;
  if (deps.memory.objects.isGone(daemonSetUid)) {
    deps.memory.fanOutFeeds.drop(daemonSetUid, feed);
    return 0;
  }
  const room = roomOf(deps, feed.state, nowMs);
  const worth = Math.min(RELEASE_BATCH, rolloutExtensionsOf(feed.state.ds).burstReplicas);
  if (Math.min(room.creates, room.deletes) < worth) return 0;
  const { taken, next, exhausted } = walk(deps, feed.state, feed.next, room, nowMs);
  feed.next = next;
  if (exhausted) deps.memory.fanOutFeeds.drop(daemonSetUid, feed);
  await send(deps, feed.state, taken);
  return taken.length;
}
