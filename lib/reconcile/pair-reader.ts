/**
 * Reading one (DaemonSet, node) pair (docs/design.md, 9. Hints, and why a stale hint is safe): from
 * the hints a DaemonSet step attached (the DaemonSet from the process cache, node and pods from the
 * hints: no request in a warm process), or from the API server (GET DaemonSet, GET node, one LIST
 * of the pair's pods).
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { timestampMillis } from '../core/pod-availability.ts';
import { nodeFromHint, type PairHints, podFromHint } from '../messages/pair-hints.ts';
import type { PairMessage } from '../messages/work-message.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';
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
  /** The resourceVersion of the LIST the pods came from, when they were listed (not hinted). */
  readonly podsListedAt?: string;
}

/** Whether a read may come from the reads of the last seconds (see RECENT_READ_MS) or must be fresh. */
export type Freshness = 'recent' | 'fresh';

/** The DaemonSet the message names, or undefined when it is gone or was re-created with another uid. */
async function readDaemonSet(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  freshness: Freshness,
): Promise<DaemonSet | undefined> {
  const { namespace, name, uid } = message.daemonSet;
  const now = deps.clock().getTime();
  const recent = freshness === 'recent' ? deps.objects.recentDaemonSet(uid, now) : undefined;
  if (recent !== undefined) return recent;
  const ds = await deps.kube.getDaemonSet(namespace, name);
  if (ds !== undefined) deps.objects.putRecentDaemonSet(ds, now);
  return ds?.metadata?.uid === uid ? ds : undefined;
}

/** The node, from the reads of the last seconds when allowed, else a GET. */
async function readNode(
  deps: ReconcileDeps,
  name: string,
  freshness: Freshness,
): Promise<V1Node | undefined> {
  const now = deps.clock().getTime();
  const recent = freshness === 'recent' ? deps.objects.recentNode(name, now) : undefined;
  if (recent !== undefined) return recent;
  const node = await deps.kube.getNode(name);
  if (node !== undefined) deps.objects.putRecentNodes([node], now);
  return node;
}

/** The pods of `ds` made for the node, bound or not, read fresh (the pair's write depends on them). */
async function readPairPods(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  nodeName: string,
): Promise<{ pods: V1Pod[]; listedAt: string }> {
  const labelSelector = pairPodsQuery(nodeName);
  const list = await deps.kube.listPods({ namespace: ds.metadata?.namespace ?? 'default', labelSelector });
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
  known?: Readonly<DaemonSet>,
): Promise<PairRead | undefined> {
  const ds = known ?? (await readDaemonSet(deps, message, freshness));
  if (ds === undefined) return undefined;
  const nodeName = message.node.name;
  const [node, listed, currentHash] = await Promise.all([
    readNode(deps, nodeName, freshness),
    readPairPods(deps, ds, nodeName),
    currentRevisionHash(deps, ds),
  ]);
  return { ds, node, nodeName, pods: listed.pods, currentHash, hinted: false, podsListedAt: listed.listedAt };
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
): Promise<DaemonSet | undefined> {
  const { uid } = message.daemonSet;
  const cached = deps.objects.daemonSet(uid, hints.daemonSet.resourceVersion);
  if (cached !== undefined) return cached;
  const ds = await readDaemonSet(deps, message, 'fresh');
  if (ds !== undefined) deps.objects.putDaemonSet(ds, hints.daemonSet.resourceVersion);
  return ds;
}

/**
 * The pair as the message's hints describe it, or the pair read from the API server when there are
 * no usable hints: none, older than {@link HINT_MAX_AGE_SECONDS}, or from another generation of the
 * DaemonSet (its template, hence the revision hash, may have changed). Hinted pods that are
 * terminating are read again: their end is what the pair waits for. Undefined when the DaemonSet is gone.
 */
export async function readHintedPair(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
): Promise<PairRead | undefined> {
  const hints = message.hints;
  if (hints === undefined || !hintsAreFresh(hints.observedAt, deps.clock()))
    return readPair(deps, message, 'recent');
  const ds = await hintedDaemonSet(deps, message, hints);
  if (ds === undefined) return undefined;
  if ((ds.metadata?.generation ?? 0) !== (hints.daemonSet.generation ?? ds.metadata?.generation ?? 0)) {
    return readPair(deps, message, 'recent', ds);
  }
  const nodeName = message.node.name;
  const namespace = ds.metadata?.namespace ?? 'default';
  // A node missing from the DaemonSet step's LIST may have joined since: its absence is asked of the
  // API server (a GET), never taken from a LIST, before any pod of it is deleted.
  const node = hints.node === null ? await readNode(deps, nodeName, 'fresh') : nodeFromHint(hints.node);
  const currentHash = hints.daemonSet.revisionHash ?? (await currentRevisionHash(deps, ds));
  if (hints.pods.some((pod) => pod.deletionTimestamp !== undefined)) {
    const listed = await readPairPods(deps, ds, nodeName);
    return {
      ds,
      node,
      nodeName,
      pods: listed.pods,
      currentHash,
      hinted: true,
      podsListedAt: listed.listedAt,
    };
  }
  const pods = hints.pods.map((pod) => podFromHint(pod, namespace, nodeName));
  return { ds, node, nodeName, pods, currentHash, hinted: true };
}
