/**
 * Reading one (DaemonSet, node) pair (docs/design.md, 9. Hints, and why a stale hint is safe): from
 * the hints a DaemonSet step attached (the DaemonSet from the process cache, node and pods from the
 * hints: no request in a warm process), or from the API server (GET DaemonSet, GET node, one LIST
 * of the pair's pods).
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { nodeSizingOf } from '../../core/node-sizing/node-sizing.ts';
import { timestampMillis } from '../../core/pod-availability.ts';
import { readsInsteadOf } from '../../messages/hint-caps.ts';
import { nodeFromHint, type PairHints, podFromHint } from '../../messages/pair-hints.ts';
import type { PairMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { pairKey } from '../memory/expectations.ts';
import type { Recent } from '../memory/object-cache.ts';
import { podTarget } from './pod-target.ts';
import { currentRevisionHash } from './revision-hash.ts';
import { pairPodsQuery } from './selector-query.ts';

/** Hints older than this are not used: the pair is read instead. */
export const HINT_MAX_AGE_SECONDS = 60;

/** The state of one pair, ready to plan. */
export interface PairRead {
  readonly ds: DaemonSet;
  /** Undefined when the node no longer exists. */
  readonly node: V1Node | undefined;
  readonly nodeName: string;
  readonly pods: V1Pod[];
  readonly currentHash: string;
  /** The node and pods came from hints. */
  readonly hinted: boolean;
  /**
   * `node` is the API server's answer to a GET made for this read (neither hinted nor a recent read
   * of another step): a delete because of the node may be planned from it as it is.
   */
  readonly nodeConfirmed: boolean;
  /** The resourceVersion of the LIST the pods came from, when they were listed (not hinted). */
  readonly podsListedAt?: string;
  /** When the API server answered the copy of the DaemonSet in `ds` (ms since the epoch). */
  readonly dsReadAt: number;
}

/** Whether a read may come from the reads of the last seconds (see RECENT_READ_MS) or must be fresh. */
export type Freshness = 'recent' | 'fresh';

/**
 * The DaemonSet the message names and when it was read, or undefined when it is gone, was
 * re-created with another uid or is being deleted: the process then forgets every copy of it.
 */
export async function readDaemonSet(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  freshness: Freshness,
): Promise<Recent<DaemonSet> | undefined> {
  const { namespace, name, uid } = message.daemonSet;
  if (deps.memory.objects.isGone(uid)) return undefined;
  const now = deps.clock().getTime();
  const recent = freshness === 'recent' ? deps.memory.objects.recentDaemonSet(uid, now) : undefined;
  if (recent !== undefined) return recent;
  const ds = await deps.ports.kube.getDaemonSet(namespace, name);
  if (ds !== undefined) deps.memory.objects.putRecentDaemonSet(ds, now);
  if (ds?.metadata?.uid === uid && !ds.metadata.deletionTimestamp) return { value: ds, at: now };
  deps.memory.objects.forgetDaemonSet(uid);
  return undefined;
}

/** The node (undefined when gone), from the reads of the last seconds when allowed, else a GET (`confirmed`). */
async function readNode(
  deps: ReconcileDeps,
  name: string,
  freshness: Freshness,
): Promise<{ node: V1Node | undefined; confirmed: boolean }> {
  const now = deps.clock().getTime();
  const recent = freshness === 'recent' ? deps.memory.objects.recentNode(name, now) : undefined;
  if (recent !== undefined) return { node: recent, confirmed: false };
  const node = await deps.ports.kube.getNode(name);
  if (node !== undefined) deps.memory.objects.putRecentNodes([node], now);
  return { node, confirmed: true };
}

/** The pods of `ds` made for the node, bound or not, read fresh (the pair's write depends on them). */
async function readPairPods(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  nodeName: string,
): Promise<{ pods: V1Pod[]; listedAt: string }> {
  const labelSelector = pairPodsQuery(nodeName);
  const list = await deps.ports.kube.listPods({
    namespace: ds.metadata?.namespace ?? 'default',
    labelSelector,
  });
  return { pods: list.items, listedAt: list.resourceVersion };
}

/**
 * The pair read from the API server: the DaemonSet (`known`, when the caller has just read it), the
 * node and the pair's pods (always a fresh LIST). With `recent` freshness the DaemonSet and the
 * node may come from this process's reads of the last few seconds (RECENT_READ_MS) — as stale as an
 * informer under load (upstream decides from informers), and it saves two requests per pair while a
 * rollout's pod events stream in; after a Conflict the pair is read `fresh`. Undefined when the
 * DaemonSet is gone.
 */
export async function readPair(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  freshness: Freshness,
  known?: Readonly<Recent<DaemonSet>>,
): Promise<PairRead | undefined> {
  const read = known ?? (await readDaemonSet(deps, message, freshness));
  if (read === undefined) return undefined;
  const ds = read.value;
  const nodeName = message.node.name;
  const [{ node, confirmed }, listed, current] = await Promise.all([
    readNode(deps, nodeName, freshness),
    readPairPods(deps, ds, nodeName),
    currentRevisionHash(deps, ds),
  ]);
  const { ds: target, hash: currentHash } = await podTarget(deps, ds, current);
  return {
    ds: target,
    node,
    nodeName,
    pods: listed.pods,
    currentHash,
    hinted: false,
    nodeConfirmed: confirmed,
    podsListedAt: listed.listedAt,
    dsReadAt: read.at,
  };
}

/** True when hints observed at `observedAt` are recent enough to plan from at `now`. */
export function hintsAreFresh(observedAt: string, now: Date): boolean {
  const observed = timestampMillis(observedAt);
  return observed !== undefined && now.getTime() - observed <= HINT_MAX_AGE_SECONDS * 1000;
}

/** The DaemonSet at the hinted version: cached, else read once and cached for the other pairs of the fan-out. */
async function hintedDaemonSet(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  hints: Readonly<PairHints>,
): Promise<Recent<DaemonSet> | undefined> {
  const { uid } = message.daemonSet;
  const { resourceVersion } = hints.daemonSet;
  const cached = deps.memory.objects.daemonSet(uid, resourceVersion);
  const at = deps.memory.objects.daemonSetReadAt(uid, resourceVersion);
  if (cached !== undefined && at !== undefined) return { value: cached, at };
  const read = await readDaemonSet(deps, message, 'fresh');
  if (read !== undefined) deps.memory.objects.putDaemonSet(read.value, read.at, resourceVersion);
  return read;
}

/**
 * The pair as the message's hints describe it, or the pair read from the API server when there are
 * no usable hints: none, older than {@link HINT_MAX_AGE_SECONDS}, or from another generation of the
 * DaemonSet (its template, hence the revision hash, may have changed). Hinted pods that are
 * terminating are read again: their end is what the pair waits for; so are pods whose hint was
 * `capped` (`hint-caps.ts`: labels past a cap left out). Undefined when the DaemonSet is gone.
 */
export async function readHintedPair(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
): Promise<PairRead | undefined> {
  const hints = message.hints;
  if (hints === undefined || !hintsAreFresh(hints.observedAt, deps.clock()))
    return readPair(deps, message, 'recent');
  const read = await hintedDaemonSet(deps, message, hints);
  if (read === undefined) return undefined;
  const ds = read.value;
  if ((ds.metadata?.generation ?? 0) !== (hints.daemonSet.generation ?? ds.metadata?.generation ?? 0)) {
    return readPair(deps, message, 'recent', read);
  }
  const nodeName = message.node.name;
  const namespace = ds.metadata?.namespace ?? 'default';
  // A node missing from the DaemonSet step's LIST may have joined since: its absence is asked of the
  // API server (a GET), never taken from a LIST, before any pod of it is deleted.
  // So is a node hinted without its allocatable (an older sender's) when the DaemonSet sizes its pods.
  const { node, confirmed } =
    hints.node === null || (hints.node.allocatable === undefined && nodeSizingOf(ds).length > 0)
      ? await readNode(deps, nodeName, 'fresh')
      : { node: nodeFromHint(hints.node), confirmed: false };
  const current = hints.daemonSet.revisionHash ?? (await currentRevisionHash(deps, ds));
  const { ds: target, hash: currentHash } = await podTarget(deps, ds, current);
  const listed = hints.pods.some(readsInsteadOf) ? await readPairPods(deps, ds, nodeName) : undefined;
  const pods = listed?.pods ?? hints.pods.map((pod) => podFromHint(pod, namespace, nodeName));
  const hinted = {
    ds: target,
    node,
    nodeName,
    pods,
    currentHash,
    hinted: true,
    nodeConfirmed: confirmed,
    dsReadAt: read.at,
  };
  return listed === undefined ? hinted : { ...hinted, podsListedAt: listed.listedAt };
}

/**
 * When the message's trigger was observed (ms since the epoch), or undefined for a DaemonSet step's
 * fan-out (hints naming no pods version): that step read the DaemonSet itself just before. The
 * relay's hints say when it saw the event; without hints, the batch's arrival bounds it.
 */
function triggeredAt(message: Readonly<PairMessage>, receivedAt: number): number | undefined {
  const { hints } = message;
  if (hints === undefined) return receivedAt;
  if (hints.podsResourceVersion === undefined) return undefined;
  return timestampMillis(hints.observedAt) ?? receivedAt;
}

/**
 * `read`, confirmed before it creates a pod. A DaemonSet may be deleted just before the event that
 * triggered the pair — background deletion removes the DaemonSet first and then its pods, whose
 * DELETED events each make a pair — so a copy of the DaemonSet read before the trigger is asked of
 * the API server again (one GET). Exempt: a pair whose old pod this process's DaemonSet step has
 * just deleted for the rolling update (it read the DaemonSet itself, a moment before the deletion
 * that triggered the pair). Undefined when it is gone or being deleted (the process then forgets
 * it); with the fresh DaemonSet when only its status or metadata moved on (same generation: same
 * template, same pods); the pair read again when its generation changed; `read` itself otherwise.
 */
export async function confirmedForCreate(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  read: Readonly<PairRead>,
  receivedAt: number,
): Promise<PairRead | undefined> {
  const trigger = triggeredAt(message, receivedAt);
  if (trigger === undefined || read.dsReadAt >= trigger) return read;
  const pair = pairKey(message.daemonSet.uid, message.node.name);
  if (deps.memory.expectations.replacementPending(pair, deps.clock().getTime())) return read;
  const fresh = await readDaemonSet(deps, message, 'fresh');
  if (fresh === undefined) return undefined;
  if (fresh.value.metadata?.resourceVersion === read.ds.metadata?.resourceVersion)
    return { ...read, dsReadAt: fresh.at };
  if (fresh.value.metadata?.generation === read.ds.metadata?.generation)
    return { ...read, ds: fresh.value, dsReadAt: fresh.at };
  return readPair(deps, message, 'fresh', fresh);
}

/**
 * `read` with its node as the API server has it now, for a plan that would delete a pod because of
 * the node (`becauseOfNode`): a hinted node, or a recent read, may be a version the node has left
 * since — tainted and untainted again, relabelled, re-created — and a delete's pod preconditions
 * cannot see that. One GET, unless `read` already got its node so (`nodeConfirmed`): `read` itself
 * then. As upstream's pod GC asks the API server whether a node missing from its informer really
 * is gone before deleting its pods (podgc gcOrphaned: discoverDeletedNodes / checkIfNodeExists).
 */
export async function withConfirmedNode(deps: ReconcileDeps, read: Readonly<PairRead>): Promise<PairRead> {
  if (read.nodeConfirmed) return read;
  const { node } = await readNode(deps, read.nodeName, 'fresh');
  return { ...read, node, nodeConfirmed: true };
}

/** The node's resourceVersion ('' when it has none); undefined when it is gone. */
export function nodeVersion(node: Readonly<V1Node> | undefined): string | undefined {
  return node === undefined ? undefined : (node.metadata?.resourceVersion ?? '');
}
