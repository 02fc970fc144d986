/**
 * Per-process caches of the reconciler (pipeline design decision 4). They make hinted pairs cost
 * one request; correctness never depends on them, because every write carries its own guard
 * (deterministic pod names, uid + resourceVersion preconditions, optimistic concurrency).
 */
import type { V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import type { ListResult } from '../kube/kube-port.ts';
import { compareResourceVersions } from '../kube/resource-version.ts';
import { SharedRead } from './shared-read.ts';
import { StepLimiter } from './step-limiter.ts';

/** A Map bounded to `size` entries, evicting the least recently used. */
class Lru<V> {
  readonly #entries = new Map<string, V>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#size) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}

/**
 * How long a fan-out is remembered at most: long enough for a burst of pair messages to drain,
 * short enough that a message lost, or handled by another process, is sent again soon.
 */
export const FAN_OUT_MEMORY_MS = 20_000;

/**
 * How long a DaemonSet or node read by any step may stand in for a fresh read in an unhinted pair:
 * about the lag of an informer under load, which is what upstream's controller decides from. The
 * writes that follow stay guarded, so a stale read costs at most a create the next event corrects.
 */
export const RECENT_READ_MS = 5_000;

/** How long the DaemonSet step leaves a pair whose old pod it deleted to that deletion's event. */
export const REPLACEMENT_WAIT_MS = 10_000;

/** What this process knows it has accounted for on one pair. */
interface PairSeen {
  /** The resourceVersion of the last LIST of the pair's pods it planned from. */
  readonly listedAt?: string;
  /** The resourceVersions of the pods it created on the pair since (their ADDED events). */
  readonly writes: readonly string[];
}

interface Recent<T> {
  readonly value: T;
  readonly at: number;
}

/**
 * DaemonSets by uid and resourceVersion, recent reads of DaemonSets and nodes, current revision hashes by DaemonSet uid, generation and
 * collisionCount, and the pair messages this process fanned out recently.
 */
export class DaemonSetCache {
  readonly #daemonSets = new Lru<DaemonSet>(1024);
  readonly #hashes = new Lru<string>(1024);
  readonly #recentDaemonSets = new Lru<Recent<DaemonSet>>(1024);
  readonly #recentNodes = new Lru<Recent<V1Node>>(16_384);
  readonly #pairsListed = new Lru<PairSeen>(65_536);
  readonly #replacements = new Lru<{ at: number; handledAt?: number }>(65_536);
  readonly #fannedOut = new Lru<{ intent: string; at: number; handledAt?: number }>(65_536);
  /** The LIST of every node, shared by the DaemonSet steps that run together (see SharedRead). */
  readonly nodeList = new SharedRead<ListResult<V1Node>>();
  /** One `daemonset` step at a time in the process (see StepLimiter). */
  readonly daemonSetSteps = new StepLimiter(1);

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

  /**
   * True when this process has accounted for the pod event at `resourceVersion` of `pair`: it
   * planned the pair from a LIST of its pods at or after that version, or the event is one of the
   * pod creates it made since.
   */
  accountedFor(pair: string, resourceVersion: string): boolean {
    const seen = this.#pairsListed.get(pair);
    if (seen === undefined) return false;
    if (seen.writes.includes(resourceVersion)) return true;
    return (
      seen.listedAt !== undefined && (compareResourceVersions(seen.listedAt, resourceVersion) ?? -1) >= 0
    );
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

  /** The current revision hash of `ds` as last computed, keyed by uid, generation and collisionCount. */
  revisionHash(ds: Readonly<DaemonSet>): string | undefined {
    return this.#hashes.get(hashKey(ds));
  }

  /** Remembers `hash` as the current revision hash of `ds`'s template. */
  putRevisionHash(ds: Readonly<DaemonSet>, hash: string): void {
    this.#hashes.set(hashKey(ds), hash);
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

  /** Remembers that `intent` was fanned out for `pair` at `nowMs`. */
  markFannedOut(pair: string, intent: string, nowMs: number): void {
    this.#fannedOut.set(pair, { intent, at: nowMs });
  }

  /** Notes that the pair step handled `pair` at `nowMs` (its writes are visible to LISTs begun later). */
  handledPair(pair: string, nowMs: number): void {
    const sent = this.#fannedOut.get(pair);
    if (sent !== undefined) this.#fannedOut.set(pair, { ...sent, handledAt: nowMs });
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
   * Forgets the fan-out of `pair` unless it was for `intent`: the DaemonSet step saw the pair in
   * another state (its pod created, or another need), so the message was acted upon, and the same
   * intent seen again later is new work (upstream: an observed create lowers the expectations).
   */
  settleFanOut(pair: string, intent: string | undefined): void {
    const sent = this.#fannedOut.get(pair);
    if (sent !== undefined && sent.intent !== intent) this.#fannedOut.delete(pair);
  }
}

function hashKey(ds: Readonly<DaemonSet>): string {
  return `${ds.metadata?.uid ?? ''}/${ds.metadata?.generation ?? 0}/${ds.status?.collisionCount ?? 0}`;
}
