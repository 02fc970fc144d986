/**
 * What this process expects to see of its own work on each pair, a DaemonSet uid and a node
 * (upstream's ControllerExpectations): the LISTs it planned from, the pair messages it fanned out
 * and the replacements it awaits. See docs/design.md, 10. Caches and expectations.
 */
import { compareResourceVersions, isAtLeast } from '../../kube/resource-version.ts';
import { Lru } from './lru.ts';

/**
 * How long a fan-out is remembered at most: long enough for a burst of pair messages to drain,
 * short enough that a message lost, or handled by another process, is sent again soon.
 */
export const FAN_OUT_MEMORY_MS = 20_000;

/**
 * How long the DaemonSet step leaves a pair whose old pod it deleted to that deletion's event: as
 * long as a fan-out is remembered, for the same reason — a step's 250 deletions bring 250 pair
 * messages at once, and at 20,000 nodes some waited past 10 s, so the next step fanned their
 * pairs out too and one of the two creates answered AlreadyExists.
 */
export const REPLACEMENT_WAIT_MS = FAN_OUT_MEMORY_MS;

/** The key the ledger files a (DaemonSet, node) pair under: the DaemonSet's uid and the node's name. */
export function pairKey(daemonSetUid: string, nodeName: string): string {
  return `${daemonSetUid}/${nodeName}`;
}

/** The pod creates and deletes a fanned-out pair message asks for. */
export interface PairLoad {
  readonly creates: number;
  readonly deletes: number;
}

/** The DaemonSet uid part of a {@link pairKey} (uids hold no `/`). */
function daemonSetUidOf(pair: string): string {
  const slash = pair.indexOf('/');
  return slash < 0 ? pair : pair.slice(0, slash);
}

/** What this process knows it has accounted for on one pair. */
interface PairSeen {
  /** The resourceVersion of the last LIST of the pair's pods it planned from. */
  readonly listedAt?: string;
  /** The resourceVersions of the pods it created on the pair since (their ADDED events). */
  readonly writes: readonly string[];
}

/**
 * The pairs this process planned and the pod creates it made on them, the pair messages it fanned
 * out recently, and the pairs whose old pod the rolling update deleted.
 *
 * What may be stale: another process may act on the same pair, and a fanned-out message may be
 * lost; an expectation is then wrong until it expires ({@link FAN_OUT_MEMORY_MS},
 * {@link REPLACEMENT_WAIT_MS}) or a later event supersedes it. That is safe because every write
 * carries its own guard: pod names are deterministic, so a duplicate create answers 409; deletes
 * carry uid and resourceVersion preconditions; status writes use optimistic concurrency. A wrong
 * expectation costs at most a retry, a re-read or a pair message sent again.
 */
export class Expectations {
  readonly #pairsListed = new Lru<PairSeen>(65_536);
  readonly #replacements = new Lru<{ at: number; handledAt?: number }>(65_536);
  readonly #fannedOut = new Lru<{ intent: string; at: number; handledAt?: number }>(65_536);
  /**
   * The fan-outs not handled yet, by DaemonSet uid: what the burst cap counts. Small (at most
   * burstReplicas creates and deletes per DaemonSet) because the fan-out never exceeds the cap.
   */
  readonly #outstanding = new Map<string, Map<string, PairLoad & { at: number }>>();

  /**
   * True when this process has accounted for the pod event at `resourceVersion` of `pair`: it
   * planned the pair from a LIST of its pods at or after that version, or the event is one of the
   * pod creates it made since.
   */
  accountedFor(pair: string, resourceVersion: string): boolean {
    const seen = this.#pairsListed.get(pair);
    if (seen === undefined) return false;
    if (seen.writes.includes(resourceVersion)) return true;
    return seen.listedAt !== undefined && isAtLeast(seen.listedAt, resourceVersion);
  }

  /**
   * True when this process created a pod on `pair` after `resourceVersion`: what was observed at that
   * version (a relay's hints) misses a pod this process knows exists.
   */
  wroteSince(pair: string, resourceVersion: string): boolean {
    const writes = this.#pairsListed.get(pair)?.writes ?? [];
    return writes.some((write) => (compareResourceVersions(write, resourceVersion) ?? 1) > 0);
  }

  /**
   * Remembers that `pair` was made right: planned from a LIST at `listedAt` (undefined when planned
   * from hints) and with pods created at `writes`.
   */
  putPairSeen(pair: string, listedAt: string | undefined, writes: readonly string[]): void {
    const before = listedAt === undefined ? this.#pairsListed.get(pair) : undefined;
    const kept = (before?.writes ?? []).slice(-8);
    this.#pairsListed.set(pair, { listedAt: listedAt ?? before?.listedAt, writes: [...kept, ...writes] });
  }

  /**
   * True when this process fanned out `intent` for `pair` (DaemonSet uid and node) less than
   * {@link FAN_OUT_MEMORY_MS} before `nowMs`, and the pair was not handled before `listedAtMs` (when
   * the DaemonSet step began the LISTs it planned from): the pair message is still on its way, or
   * its effect may be missing from those LISTs, as upstream's expectations would say.
   */
  fannedOut(pair: string, intent: string, nowMs: number, listedAtMs: number): boolean {
    const sent = this.#fannedOut.get(pair);
    if (sent === undefined || sent.intent !== intent || nowMs - sent.at >= FAN_OUT_MEMORY_MS) return false;
    return sent.handledAt === undefined || sent.handledAt >= listedAtMs;
  }

  /**
   * Remembers that `intent` was fanned out for `pair` at `nowMs`, asking for `load`: outstanding
   * until a pair step of this process handles the pair, a DaemonSet step sees the pair in another
   * state, or {@link FAN_OUT_MEMORY_MS} pass.
   */
  markFannedOut(
    pair: string,
    intent: string,
    nowMs: number,
    load: PairLoad = { creates: 0, deletes: 0 },
  ): void {
    this.#fannedOut.set(pair, { intent, at: nowMs });
    const uid = daemonSetUidOf(pair);
    const pending = this.#outstanding.get(uid) ?? new Map<string, PairLoad & { at: number }>();
    pending.set(pair, { ...load, at: nowMs });
    this.#outstanding.set(uid, pending);
  }

  /** Forgets the fan-out of `pair` altogether: its message was never sent. */
  forgetFanOut(pair: string): void {
    this.#fannedOut.delete(pair);
    this.#settleOutstanding(pair);
  }

  /**
   * The creates and deletes this process fanned out for the DaemonSet `daemonSetUid` less than
   * {@link FAN_OUT_MEMORY_MS} before `nowMs` and not yet acted on: what upstream's expectations
   * count as not yet observed, and what the burst cap counts (docs/design.md, 15. The DaemonSet
   * step). A message handled by another process stays counted until a DaemonSet step sees its
   * effect or it expires, which only slows the fan-out.
   */
  outstanding(daemonSetUid: string, nowMs: number): PairLoad {
    const pending = this.#outstanding.get(daemonSetUid);
    let [creates, deletes] = [0, 0];
    for (const [pair, load] of pending ?? []) {
      if (nowMs - load.at >= FAN_OUT_MEMORY_MS) {
        pending?.delete(pair);
        continue;
      }
      [creates, deletes] = [creates + load.creates, deletes + load.deletes];
    }
    if (pending !== undefined && pending.size === 0) this.#outstanding.delete(daemonSetUid);
    return { creates, deletes };
  }

  /** The nodes of the fan-outs of `daemonSetUid` still outstanding (see {@link outstanding}). */
  outstandingNodes(daemonSetUid: string): string[] {
    const prefix = daemonSetUid.length + 1;
    return [...(this.#outstanding.get(daemonSetUid)?.keys() ?? [])].map((pair) => pair.slice(prefix));
  }

  #settleOutstanding(pair: string): void {
    const uid = daemonSetUidOf(pair);
    const pending = this.#outstanding.get(uid);
    if (pending === undefined) return;
    pending.delete(pair);
    if (pending.size === 0) this.#outstanding.delete(uid);
  }

  /** Notes that the pair step handled `pair` at `nowMs` (its writes are visible to LISTs begun later). */
  handledPair(pair: string, nowMs: number): void {
    const sent = this.#fannedOut.get(pair);
    if (sent !== undefined) this.#fannedOut.set(pair, { ...sent, handledAt: nowMs });
    this.#settleOutstanding(pair);
    const awaited = this.#replacements.get(pair);
    if (awaited !== undefined) this.#replacements.set(pair, { ...awaited, handledAt: nowMs });
  }

  /**
   * Notes that the rolling update deleted `pair`'s old pod at `nowMs`: the pod's deletion event
   * brings a pair message that creates the replacement (upstream: expectations of a deletion).
   */
  expectReplacement(pair: string, nowMs: number): void {
    this.#replacements.set(pair, { at: nowMs });
  }

  /**
   * True when the rolling update deleted `pair`'s pod less than {@link REPLACEMENT_WAIT_MS} before
   * `nowMs` and the pair was not handled before `listedAtMs`: its replacement is on its way and the
   * DaemonSet step need not fan it out.
   */
  awaitingReplacement(pair: string, nowMs: number, listedAtMs: number): boolean {
    const awaited = this.#replacements.get(pair);
    if (awaited === undefined || nowMs - awaited.at >= REPLACEMENT_WAIT_MS) return false;
    return awaited.handledAt === undefined || awaited.handledAt >= listedAtMs;
  }

  /**
   * True when the rolling update deleted `pair`'s pod less than {@link REPLACEMENT_WAIT_MS} before
   * `nowMs` and no pair step has handled the pair since: the step that creates the replacement is
   * the one that deletion brought.
   */
  replacementPending(pair: string, nowMs: number): boolean {
    const awaited = this.#replacements.get(pair);
    return (
      awaited !== undefined && awaited.handledAt === undefined && nowMs - awaited.at < REPLACEMENT_WAIT_MS
    );
  }

  /**
   * Forgets the fan-out of `pair` unless it was for `intent`: the DaemonSet step saw the pair in
   * another state (its pod created, or another need), so the message was acted upon, and the same
   * intent seen again later is new work (upstream: an observed create lowers the expectations).
   */
  settleFanOut(pair: string, intent: string | undefined): void {
    const sent = this.#fannedOut.get(pair);
    if (sent !== undefined && sent.intent !== intent) this.forgetFanOut(pair);
  }
}
