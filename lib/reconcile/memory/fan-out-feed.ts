/**
 * What each DaemonSet step of this process left unsent because of the burst cap: the rest of its
 * walk over the nodes, which the pair steps of the same process release as they act on the pairs
 * fanned out before (docs/design.md, 15. The DaemonSet step). Creates then flow at the request
 * budget rather than at burstReplicas per DaemonSet step, however long a step takes.
 */
import type { DaemonSet } from '../../core/daemon-set.ts';
import type { NodeView } from '../../core/node-view.ts';
import type { MessageCause } from '../../messages/message-cause.ts';

/**
 * How long a step's remaining walk may be released from: about two DaemonSet steps at 20,000
 * nodes. Its hints are as old (the pair step refuses them after a minute), and a DaemonSet deleted
 * meanwhile in another process gets at most this long of creates that garbage collection removes.
 */
export const FEED_MAX_AGE_MS = 10_000;

/** What the fan-out works from: one DaemonSet step's LISTs and plan. */
export interface FanOutState {
  readonly ds: Readonly<DaemonSet>;
  readonly views: readonly NodeView[];
  /** The node readiness gate keys the DaemonSet's pods tolerate (`gateKeysFor` of lib/core/node-gates/gate-declaration.ts). */
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

/** The rest of one DaemonSet step's walk: `next` is the index of the first view not walked yet. */
export interface Feed<S> {
  /** What the step planned from (its LISTs, hash, time). */
  readonly state: S;
  /** Index of the next node view to walk. */
  next: number;
  /** When the step installed it (ms since the epoch). */
  readonly installedAt: number;
}

/**
 * The feeds of the process by DaemonSet uid, at most one each: the latest step's replaces any
 * earlier one (it planned from newer LISTs). A feed older than {@link FEED_MAX_AGE_MS} is dropped.
 */
export class FanOutFeeds<S> {
  readonly #feeds = new Map<string, Feed<S>>();

  /** Installs the rest of a step's walk for `daemonSetUid`, replacing an earlier one. */
  put(daemonSetUid: string, state: S, next: number, nowMs: number): void {
    this.#feeds.set(daemonSetUid, { state, next, installedAt: nowMs });
  }

  /** The feed of `daemonSetUid` if one is young enough at `nowMs`. */
  get(daemonSetUid: string, nowMs: number): Feed<S> | undefined {
    const feed = this.#feeds.get(daemonSetUid);
    if (feed !== undefined && nowMs - feed.installedAt >= FEED_MAX_AGE_MS) this.#feeds.delete(daemonSetUid);
    else return feed;
    return undefined;
  }

  /**
   * Drops the feed of `daemonSetUid` (walked to its end, or its DaemonSet is gone); only `feed`
   * when given, so a feed installed since by a newer step stays.
   */
  drop(daemonSetUid: string, feed?: Feed<S>): void {
    if (feed === undefined || this.#feeds.get(daemonSetUid) === feed) this.#feeds.delete(daemonSetUid);
  }

  /** How many DaemonSets have a feed (for tests and metrics). */
  get size(): number {
    return this.#feeds.size;
  }
}
