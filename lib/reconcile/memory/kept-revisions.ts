/**
 * The namespace's ControllerRevisions as a DaemonSet's latest step in this process listed them,
 * planned on again by the steps its relay triggers bring while the DaemonSet's spec stays the same
 * (docs/design.md, 15. The DaemonSet step: "Revisions are listed when they can have changed").
 * Only the DaemonSet's own writes change its revisions while its generation stands, and a step
 * that wrote one does not keep its list. A stale list only makes a revision write collide, which
 * lists again and plans once more.
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { Lru } from './lru.ts';

/**
 * How long a kept list may be planned on after it was listed: as long as a kept pod table, so a
 * DaemonSet whose steps keep running lists its revisions at least once a minute besides its
 * recounts.
 */
export const REVISION_LIST_REUSE_MS = 60_000;

interface Kept {
  readonly generation: number;
  readonly revisions: readonly V1ControllerRevision[];
  /** When the LIST began (ms since the epoch). */
  readonly listedAt: number;
}

export class KeptRevisions {
  readonly #byDaemonSet = new Lru<Kept>(1024);

  /**
   * DaemonSet `uid`'s kept list when it was listed under `generation` at most
   * {@link REVISION_LIST_REUSE_MS} before `now`, with when it was listed; else undefined.
   */
  get(
    uid: string,
    generation: number,
    now: number,
  ): { readonly revisions: readonly V1ControllerRevision[]; readonly listedAt: number } | undefined {
    const kept = this.#byDaemonSet.get(uid);
    if (kept === undefined || kept.generation !== generation) return undefined;
    if (now - kept.listedAt > REVISION_LIST_REUSE_MS) return undefined;
    return kept;
  }

  /** Keeps `revisions`, listed at `listedAt` while DaemonSet `uid` was at `generation`. */
  put(uid: string, generation: number, revisions: readonly V1ControllerRevision[], listedAt: number): void {
    this.#byDaemonSet.set(uid, { generation, revisions, listedAt });
  }

  /** Forgets DaemonSet `uid`'s list: its step wrote a revision, or it is gone. */
  forget(uid: string): void {
    this.#byDaemonSet.delete(uid);
  }
}
