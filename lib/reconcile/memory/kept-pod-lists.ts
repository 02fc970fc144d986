/**
 * The pods of each DaemonSet as the latest step of it in this process read them, kept to be caught
 * up by a watch instead of listed again (docs/design.md, 15. The DaemonSet step: "A pod LIST is
 * caught up by a watch"). A table is taken out while a step catches it up and put back after, so a
 * step that fails leaves none behind and the next one lists (a watch refused with 429 applied
 * nothing, and its table is put back).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { WatchEvent } from '../../kube/kube-port.ts';
import { isNewer } from '../../kube/resource-version.ts';
import { Lru } from './lru.ts';

/**
 * How many pods the kept tables of a process hold at most, all DaemonSets together: three
 * DaemonSets of 20,000 pods. Beyond it the least recently kept table is dropped, and its
 * DaemonSet's next step lists.
 */
export const KEPT_PODS_BUDGET = 60_000;

/**
 * The fewest pods a DaemonSet's LIST must hold to be kept and caught up: fewer than the node LIST's
 * threshold, because a pod LIST costs more per object and a DaemonSet step runs far more often than
 * nodes change. Measured with `node-ready` at 1,000 nodes and 10 DaemonSets within one hour: kept,
 * ours p50 32–37 ms in four runs; listed every step, 66 and 78 ms in two. Below it the LIST is small
 * and the recount a kept table needs is not worth it.
 */
export const KEPT_PODS_MIN = 500;

/** One DaemonSet's pods matching its selector, at `resourceVersion`. */
export interface KeptPods {
  /** The namespace and label selector the pods were read with: a changed selector lists again. */
  readonly query: string;
  /** The pods by uid. */
  readonly pods: Map<string, V1Pod>;
  /** The version the table shows the selection at: the LIST's, then the last event's or bookmark's. */
  resourceVersion: string;
  /** When the LIST the table started from began (ms since the epoch). */
  readonly listedAt: number;
  /**
   * The pods the DaemonSet's steps in this process deleted since, by uid, with when: shown as being
   * deleted until their DELETED event comes, as upstream's deletion expectations hold a sync back,
   * so an older event of such a pod that a catch-up applies does not count it as running again.
   */
  readonly deleting: Map<string, Date>;
}

/** The table's pods, those its steps deleted and whose deletion it has not seen marked as being deleted. */
export function keptPodsOf(table: Readonly<KeptPods>): V1Pod[] {
  const pods = [...table.pods.values()];
  if (table.deleting.size === 0) return pods;
  return pods.map((pod) => {
    const since = table.deleting.get(pod.metadata?.uid ?? '');
    if (since === undefined || pod.metadata?.deletionTimestamp) return pod;
    return { ...pod, metadata: { ...pod.metadata, deletionTimestamp: since } };
  });
}

/** `event` applied to `table`: the pod set or removed, the version moved on. */
export function applyPodEvent(table: KeptPods, event: Readonly<WatchEvent<V1Pod>>): void {
  if (event.type !== 'BOOKMARK') {
    const uid = event.object.metadata?.uid ?? '';
    if (event.type === 'DELETED') {
      table.pods.delete(uid);
      table.deleting.delete(uid);
    } else table.pods.set(uid, event.object);
  }
  table.resourceVersion = event.resourceVersion;
}

export class KeptPodLists {
  /** The tables by DaemonSet uid, least recently put first. */
  readonly #tables = new Map<string, KeptPods>();
  readonly #budget: number;
  readonly #minPods: number;
  #pods = 0;
  /** The resourceVersion of the newest pod this process wrote (see noteWritten), by DaemonSet uid. */
  readonly #written = new Lru<string>(4096);

  constructor(budget = KEPT_PODS_BUDGET, minPods = KEPT_PODS_MIN) {
    this.#budget = budget;
    this.#minPods = minPods;
  }

  /** True when a LIST of `pods` pods is large enough to be kept and caught up ({@link KEPT_PODS_MIN}). */
  worthKeeping(pods: number): boolean {
    return pods >= this.#minPods;
  }

  /** DaemonSet `uid`'s table when it was read with `query`, left in place; undefined otherwise. */
  peek(uid: string, query: string): Readonly<KeptPods> | undefined {
    const table = this.#tables.get(uid);
    return table?.query === query ? table : undefined;
  }

  /** Takes DaemonSet `uid`'s table out when it was read with `query`; undefined otherwise. */
  take(uid: string, query: string): KeptPods | undefined {
    const table = this.#tables.get(uid);
    if (table === undefined) return undefined;
    this.forget(uid);
    return table.query === query ? table : undefined;
  }

  /** Keeps `table` as DaemonSet `uid`'s, dropping the least recently kept tables beyond the budget. */
  put(uid: string, table: KeptPods): void {
    this.forget(uid);
    this.#tables.set(uid, table);
    this.#pods += table.pods.size;
    for (const [oldest, kept] of this.#tables) {
      if (this.#pods <= this.#budget || oldest === uid) break;
      this.#tables.delete(oldest);
      this.#pods -= kept.pods.size;
    }
  }

  /** DaemonSet `uid`'s step deleted the pod `podUid` at `at` (see {@link KeptPods.deleting}). */
  noteDeleting(uid: string, podUid: string, at: Date): void {
    this.#tables.get(uid)?.deleting.set(podUid, at);
  }

  /**
   * A step of this process wrote a pod of DaemonSet `uid` (created it, or updated it in place), the
   * pod then at `resourceVersion`: a later catch-up of the DaemonSet's table reads at least that
   * far, so its plan sees the write, as upstream's creation expectations hold a sync back until the
   * informer saw its creates. Without it a step whose watch fell quiet before the event of the
   * previous step's patch arrived planned the patch again (refused, as it tests the old revision
   * label, but a request all the same).
   */
  noteWritten(uid: string, resourceVersion: string): void {
    const known = this.#written.get(uid);
    if (known === undefined || isNewer(resourceVersion, known)) this.#written.set(uid, resourceVersion);
  }

  /** The newer of `version` and the newest pod write of this process for DaemonSet `uid`. */
  catchUpTarget(uid: string, version: string): string {
    const written = this.#written.get(uid);
    return written !== undefined && isNewer(written, version) ? written : version;
  }

  /** Forgets DaemonSet `uid`'s table (it was deleted or re-created). */
  forget(uid: string): void {
    const table = this.#tables.get(uid);
    if (table === undefined) return;
    this.#tables.delete(uid);
    this.#pods -= table.pods.size;
  }

  /** How many pods the tables hold. */
  get size(): number {
    return this.#pods;
  }
}
