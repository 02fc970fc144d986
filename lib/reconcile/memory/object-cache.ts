/**
 * The objects the reconciler has read, kept per process (upstream's informer caches and listers):
 * they make a hinted pair cost one request. See docs/design.md, 10. Caches and expectations.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { NODE_SIZING_ANNOTATION } from '../../core/node-sizing/sizing-spec.ts';
import { Lru } from './lru.ts';

/**
 * How long a DaemonSet or node read by any step may stand in for a fresh read in an unhinted pair:
 * about the lag of an informer under load, which is what upstream's controller decides from. The
 * writes that follow stay guarded, so a stale read costs at most a create the next event corrects.
 */
export const RECENT_READ_MS = 5_000;

/** A copy of an object and when the API server answered it (ms since the epoch). */
export interface Recent<T> {
  readonly value: T;
  readonly at: number;
}

/**
 * DaemonSets by uid and resourceVersion, recent reads of DaemonSets and nodes, current revision
 * hashes by DaemonSet uid, generation and collisionCount, and the uids of DaemonSets known to be
 * gone or being deleted (no copy of those is handed out again).
 *
 * What may be stale: a DaemonSet under a resourceVersion is exact (an object at a version never
 * changes), but a recent read may be up to {@link RECENT_READ_MS} behind, and a revision hash may
 * miss a ControllerRevision another process wrote. That is safe because every write carries its
 * own guard: pod names are deterministic, so a duplicate create answers 409; deletes carry uid and
 * resourceVersion preconditions; status writes use optimistic concurrency. A stale entry costs at
 * most a retry or a re-read.
 */
export class ObjectCache {
  readonly #daemonSets = new Lru<Recent<DaemonSet>>(1024);
  readonly #gone = new Lru<true>(4096);
  readonly #hashes = new Lru<string>(1024);
  readonly #recentDaemonSets = new Lru<Recent<DaemonSet>>(1024);
  readonly #recentNodes = new Lru<Recent<V1Node>>(16_384);
  /** The latest node LIST, whole: a LIST of more nodes than the map above holds is still all kept. */
  #listedNodes: (Recent<ReadonlyMap<string, V1Node>> & { readonly items: readonly object[] }) | undefined;
  /** The latest copy of each DaemonSet read, by uid: what the node readiness gate keys are known from. */
  readonly #latestDaemonSets = new Lru<Recent<DaemonSet>>(1024);

  /** The DaemonSet `uid` as it was at `resourceVersion` (or as read in answer to that version), if cached. */
  daemonSet(uid: string, resourceVersion: string): DaemonSet | undefined {
    if (this.#gone.get(uid)) return undefined;
    return this.#daemonSets.get(`${uid}@${resourceVersion}`)?.value;
  }

  /** When the API server answered the copy {@link daemonSet} returns (ms since the epoch), if cached. */
  daemonSetReadAt(uid: string, resourceVersion: string): number | undefined {
    return this.#daemonSets.get(`${uid}@${resourceVersion}`)?.at;
  }

  /**
   * Caches `ds` under its own resourceVersion and under `askedFor`: a read made because a hint
   * named version `askedFor` answered this newer object, which later pairs naming `askedFor` may
   * use too (it is at least as fresh as their hints).
   */
  putDaemonSet(ds: Readonly<DaemonSet>, readAt: number, askedFor?: string): void {
    const uid = ds.metadata?.uid ?? '';
    if (this.#gone.get(uid)) return;
    const entry = { value: structuredClone(ds) as DaemonSet, at: readAt };
    this.#daemonSets.set(`${uid}@${ds.metadata?.resourceVersion ?? ''}`, entry);
    if (askedFor !== undefined) this.#daemonSets.set(`${uid}@${askedFor}`, entry);
    this.#putLatest(uid, entry);
  }

  /**
   * The latest copy of every DaemonSet this process has read and not learnt to be gone: the pair
   * and DaemonSet steps, which read one DaemonSet, take from it the node readiness gate keys their
   * pods tolerate (a missing one only delays a pod on a gated node until the node step, which lists
   * every DaemonSet).
   */
  knownDaemonSets(): DaemonSet[] {
    return this.#latestDaemonSets.values().map((entry) => entry.value);
  }

  #putLatest(uid: string, entry: Recent<DaemonSet>): void {
    const latest = this.#latestDaemonSets.get(uid);
    if (latest === undefined || latest.at <= entry.at) this.#latestDaemonSets.set(uid, entry);
  }

  /**
   * Forgets every copy of the DaemonSet `uid` and remembers that it is gone or being deleted, so no
   * step of this process plans a pod for it from a copy read before. A uid is never reused, so the
   * mark never needs lifting.
   */
  forgetDaemonSet(uid: string): void {
    this.#gone.set(uid, true);
    this.#recentDaemonSets.delete(uid);
    this.#latestDaemonSets.delete(uid);
  }

  /** True when this process learnt that the DaemonSet `uid` is gone or being deleted. */
  isGone(uid: string): boolean {
    return this.#gone.get(uid) === true;
  }

  /** The DaemonSet `uid` as read less than {@link RECENT_READ_MS} before `nowMs`, if any. */
  recentDaemonSet(uid: string, nowMs: number): Readonly<Recent<DaemonSet>> | undefined {
    const recent = this.#recentDaemonSets.get(uid);
    return recent !== undefined && nowMs - recent.at < RECENT_READ_MS ? recent : undefined;
  }

  /** Remembers a fresh read of `ds` made at `nowMs`. */
  putRecentDaemonSet(ds: Readonly<DaemonSet>, nowMs: number): void {
    const uid = ds.metadata?.uid ?? '';
    if (this.#gone.get(uid)) return;
    const entry = { value: structuredClone(ds) as DaemonSet, at: nowMs };
    this.#recentDaemonSets.set(uid, entry);
    this.#putLatest(uid, entry);
  }

  /** The node `name` as read less than {@link RECENT_READ_MS} before `nowMs`, if any. */
  recentNode(name: string, nowMs: number): V1Node | undefined {
    const read = this.#recentNodes.get(name);
    const listed = this.#listedNodes;
    const inList = listed?.value.get(name);
    const recent =
      inList !== undefined && listed !== undefined && (read === undefined || listed.at > read.at)
        ? { value: inList, at: listed.at }
        : read;
    return recent !== undefined && nowMs - recent.at < RECENT_READ_MS ? recent.value : undefined;
  }

  /** Remembers fresh reads of `nodes` made at `nowMs` (GETs, written nodes). */
  putRecentNodes(nodes: readonly Readonly<V1Node>[], nowMs: number): void {
    for (const node of nodes)
      this.#recentNodes.set(node.metadata?.name ?? '', { value: node as V1Node, at: nowMs });
  }

  /**
   * Remembers a LIST of every node begun at `listedAtMs`, in place of an older one: its nodes serve
   * {@link recentNode} wherever no later single read of the node was remembered.
   */
  putListedNodes(nodes: readonly Readonly<V1Node>[], listedAtMs: number): void {
    const kept = this.#listedNodes;
    // The steps sharing one LIST (or planning on a kept one) each hand it in: it is indexed once.
    if (kept !== undefined && (kept.at > listedAtMs || kept.items === nodes)) return;
    const byName = new Map<string, V1Node>();
    for (const node of nodes) byName.set(node.metadata?.name ?? '', node as V1Node);
    this.#listedNodes = { value: byName, at: listedAtMs, items: nodes };
  }

  /**
   * The current revision hash of `ds` as last computed, keyed by uid, generation and collisionCount
   * (and the node-sizing annotation, whose change moves no generation).
   */
  revisionHash(ds: Readonly<DaemonSet>): string | undefined {
    return this.#hashes.get(hashKey(ds));
  }

  /** Remembers `hash` as the current revision hash of `ds`'s template. */
  putRevisionHash(ds: Readonly<DaemonSet>, hash: string): void {
    this.#hashes.set(hashKey(ds), hash);
  }
}

function hashKey(ds: Readonly<DaemonSet>): string {
  const key = `${ds.metadata?.uid ?? ''}/${ds.metadata?.generation ?? 0}/${ds.status?.collisionCount ?? 0}`;
  // apps/v1 holds the node-sizing rules, part of the revision, in an annotation: no generation moves.
  const sizing = ds.metadata?.annotations?.[NODE_SIZING_ANNOTATION];
  return sizing === undefined ? key : `${key}/${sizing}`;
}
