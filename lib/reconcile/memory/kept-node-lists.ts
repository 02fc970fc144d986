/**
 * The node LIST reuse of the DaemonSet steps of one process (docs/design.md, 15. The DaemonSet step:
 * "A node LIST is reused while no node changed"): from what size a kept LIST is worth planning on,
 * which DaemonSets were counted from a fresh LIST and since when, and which recounts were asked for.
 *
 * A recount requested by a step planned on a kept LIST is covered once a later step of the same
 * DaemonSet in this process counted from a LIST that began after the request, and is then skipped.
 * Another process knows nothing of it and runs the recount: the record only ever saves a step.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { WatchEvent } from '../../kube/kube-port.ts';
import { Lru } from './lru.ts';

/**
 * Every node as the process's latest node read showed it, kept to be caught up by a watch instead of
 * listed again (docs/design.md, 15. The DaemonSet step), as a DaemonSet's pods are.
 */
export interface KeptNodeTable {
  /** The nodes by name. */
  readonly nodes: Map<string, V1Node>;
  /** The version the table shows the nodes at: the LIST's, then the last event's or bookmark's. */
  resourceVersion: string;
  /** When the LIST the table started from began (ms since the epoch). */
  readonly listedAt: number;
}

/** `event` applied to `table`: the node set or removed, the version moved on. */
export function applyNodeEvent(table: KeptNodeTable, event: Readonly<WatchEvent<V1Node>>): void {
  if (event.type !== 'BOOKMARK') {
    const name = event.object.metadata?.name ?? '';
    if (event.type === 'DELETED') table.nodes.delete(name);
    else table.nodes.set(name, event.object);
  }
  table.resourceVersion = event.resourceVersion;
}

/**
 * The fewest nodes a kept LIST must hold to be planned on again. A smaller LIST costs less to make
 * afresh than the recount its reuse needs (measured at 1,000 nodes: `node-ready` tails grew with
 * reuse), and at scale the LIST is what costs: at 20,000 nodes it is 33 MB.
 */
export const NODE_LIST_REUSE_MIN_NODES = 2_000;

export class KeptNodeLists {
  readonly #minNodes: number;
  /** When the node LIST of the latest step counted from a fresh LIST began, by DaemonSet uid (ms since the epoch). */
  readonly #freshFrom = new Lru<number>(4096);
  /** The de-duplication id of the latest recount asked for, by DaemonSet uid. */
  readonly #asked = new Lru<string>(4096);
  /** The node table to catch up, while no step has it taken out. */
  #table: KeptNodeTable | undefined;

  constructor(minNodes = NODE_LIST_REUSE_MIN_NODES) {
    this.#minNodes = minNodes;
  }

  /** True when a kept LIST of `nodes` nodes is large enough to be planned on again. */
  worthKeeping(nodes: number): boolean {
    return nodes >= this.#minNodes;
  }

  /** A step of DaemonSet `uid` counted and wrote its status from a node LIST begun at `listStartedAt`. */
  noteFresh(uid: string, listStartedAt: number): void {
    this.#freshFrom.set(uid, Math.max(listStartedAt, this.#freshFrom.get(uid) ?? 0));
  }

  /** True when a step of DaemonSet `uid` counted from a node LIST begun after `requestedAt`. */
  covers(uid: string, requestedAt: number): boolean {
    return (this.#freshFrom.get(uid) ?? Number.NEGATIVE_INFINITY) > requestedAt;
  }

  /** True when this process already sent the recount of DaemonSet `uid` with `deduplicationId` (a later one would be dropped as a duplicate). */
  asked(uid: string, deduplicationId: string): boolean {
    return this.#asked.get(uid) === deduplicationId;
  }

  /** This process sent the recount of DaemonSet `uid` with `deduplicationId`. */
  noteAsked(uid: string, deduplicationId: string): void {
    this.#asked.set(uid, deduplicationId);
  }

  /** Takes the kept node table out (a step catching it up holds it alone); undefined when none is kept. */
  takeTable(): KeptNodeTable | undefined {
    const table = this.#table;
    this.#table = undefined;
    return table;
  }

  /** Keeps `table` unless a table read later is kept already. */
  putTable(table: KeptNodeTable): void {
    if (this.#table === undefined || table.listedAt >= this.#table.listedAt) this.#table = table;
  }
}
