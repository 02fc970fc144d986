/**
 * The objects the reconciler has read, kept per process (upstream's informer caches and listers):
 * they make a hinted pair cost one request. See docs/design.md, 10. Caches and expectations.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { Lru } from './lru.ts';

/**
 * How long a DaemonSet or node read by any step may stand in for a fresh read in an unhinted pair:
 * about the lag of an informer under load, which is what upstream's controller decides from. The
 * writes that follow stay guarded, so a stale read costs at most a create the next event corrects.
 */
export const RECENT_READ_MS = 5_000;

interface Recent<T> {
  readonly value: T;
  readonly at: number;
}

/**
 * DaemonSets by uid and resourceVersion, recent reads of DaemonSets and nodes, and current
 * revision hashes by DaemonSet uid, generation and collisionCount.
 *
 * What may be stale: a DaemonSet under a resourceVersion is exact (an object at a version never
 * changes), but a recent read may be up to {@link RECENT_READ_MS} behind, and a revision hash may
 * miss a ControllerRevision another process wrote. That is safe because every write carries its
 * own guard: pod names are deterministic, so a duplicate create answers 409; deletes carry uid and
 * resourceVersion preconditions; status writes use optimistic concurrency. A stale entry costs at
 * most a retry or a re-read.
 */
export class ObjectCache {
  readonly #daemonSets = new Lru<DaemonSet>(1024);
  readonly #hashes = new Lru<string>(1024);
  readonly #recentDaemonSets = new Lru<Recent<DaemonSet>>(1024);
  readonly #recentNodes = new Lru<Recent<V1Node>>(16_384);

  /** The DaemonSet `uid` as it was at `resourceVersion` (or as read in answer to that version), if cached. */
  daemonSet(uid: string, resourceVersion: string): DaemonSet | undefined {
    return this.#daemonSets.get(`${uid}@${resourceVersion}`);
  }

  /**
   * Caches `ds` under its own resourceVersion and under `askedFor`: a read made because a hint
   * named version `askedFor` answered this newer object, which later pairs naming `askedFor` may
   * use too (it is at least as fresh as their hints).
   */
  putDaemonSet(ds: Readonly<DaemonSet>, askedFor?: string): void {
    const uid = ds.metadata?.uid ?? '';
    const copy = structuredClone(ds) as DaemonSet;
    this.#daemonSets.set(`${uid}@${ds.metadata?.resourceVersion ?? ''}`, copy);
    if (askedFor !== undefined) this.#daemonSets.set(`${uid}@${askedFor}`, copy);
  }

  /** The DaemonSet `uid` as read less than {@link RECENT_READ_MS} before `nowMs`, if any. */
  recentDaemonSet(uid: string, nowMs: number): DaemonSet | undefined {
    const recent = this.#recentDaemonSets.get(uid);
    return recent !== undefined && nowMs - recent.at < RECENT_READ_MS ? recent.value : undefined;
  }

  /** Remembers a fresh read of `ds` made at `nowMs`. */
  putRecentDaemonSet(ds: Readonly<DaemonSet>, nowMs: number): void {
    this.#recentDaemonSets.set(ds.metadata?.uid ?? '', {
      value: structuredClone(ds) as DaemonSet,
      at: nowMs,
    });
  }

  /** The node `name` as read less than {@link RECENT_READ_MS} before `nowMs`, if any. */
  recentNode(name: string, nowMs: number): V1Node | undefined {
    const recent = this.#recentNodes.get(name);
    return recent !== undefined && nowMs - recent.at < RECENT_READ_MS ? recent.value : undefined;
  }

  /** Remembers fresh reads of `nodes` made at `nowMs`. */
  putRecentNodes(nodes: readonly Readonly<V1Node>[], nowMs: number): void {
    for (const node of nodes)
      this.#recentNodes.set(node.metadata?.name ?? '', { value: node as V1Node, at: nowMs });
  }

  /** The current revision hash of `ds` as last computed, keyed by uid, generation and collisionCount. */
  revisionHash(ds: Readonly<DaemonSet>): string | undefined {
    return this.#hashes.get(hashKey(ds));
  }

  /** Remembers `hash` as the current revision hash of `ds`'s template. */
  putRevisionHash(ds: Readonly<DaemonSet>, hash: string): void {
    this.#hashes.set(hashKey(ds), hash);
  }
}

function hashKey(ds: Readonly<DaemonSet>): string {
  return `${ds.metadata?.uid ?? ''}/${ds.metadata?.generation ?? 0}/${ds.status?.collisionCount ?? 0}`;
}
