/**
 * everynode's pods as the relay's pod watch last saw them, by uid and by the node they target, kept
 * as compact records (`cluster-view/pod-record.ts`): the one collection of the relay that grows with nodes
 * × DaemonSets (200,000 pods at 20,000 nodes and 10 DaemonSets).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../core/daemon-pod.ts';
import { type PodHint, podHintOf } from '../../messages/pair-hints.ts';
import { type Seeding, seedingInPlace } from './list-seeding.ts';
import { type PodRecord, podHintFrom, podRecordOf } from './pod-record.ts';
import type { Interner } from './shared-values.ts';

/**
 * Pod records by uid, and by target node in the order they were last put (an updated pod moves to
 * the end): the order in which hints list a node's pods. Also how many of each controller's pods
 * are not ready.
 */
export class RelayPodIndex {
  readonly #byUid = new Map<string, PodRecord>();
  readonly #byNode = new Map<string, PodRecord[]>();
  readonly #unready = new Map<string, number>();

  /** `interner`: shares the values pods repeat (labels, controller references, condition kinds). */
  constructor(private readonly interner: Interner) {}

  /** Pods known. */
  get size(): number {
    return this.#byUid.size;
  }

  /** How many known pods the controller with `uid` has that are not ready. */
  unreadyOf(uid: string): number {
    return this.#unready.get(uid) ?? 0;
  }

  /**
   * A seeding from a LIST taken page by page (`cluster-view/list-seeding.ts`): each page's pods put as they
   * come — one known at the same version kept as it is (an object at a version never changes: a
   * relist of unchanged pods makes no records to collect) — and the pods the list did not show
   * dropped at the commit.
   */
  seeding(): Seeding<V1Pod> {
    const put = (pod: Readonly<V1Pod>) => {
      const { uid = '', resourceVersion } = pod.metadata ?? {};
      const known = this.#byUid.get(uid);
      return resourceVersion && known?.resourceVersion === resourceVersion ? uid : this.put(pod);
    };
    return seedingInPlace(this.#byUid, put, (uid) => this.drop(uid));
  }

  /**
   * Remembers `pod` (added or modified), filed under its target node, and returns its uid; one
   * without uid or node is dropped.
   */
  put(pod: Readonly<V1Pod>): string {
    const uid = pod.metadata?.uid ?? '';
    this.drop(uid);
    const target = targetNodeName(pod);
    if (!uid || !target) return uid;
    const onNode = this.#byNode.get(target);
    // The node's name as its pods already share it, so each name is kept once.
    const node = onNode?.[0]?.node ?? target;
    const record = podRecordOf(podHintOf(pod), node, this.interner);
    if (onNode === undefined) this.#byNode.set(node, [record]);
    else onNode.push(record);
    this.#byUid.set(uid, record);
    this.#countUnready(record, 1);
    return uid;
  }

  /** Forgets the pod with `uid` (deleted, or moved). */
  drop(uid: string): void {
    const record = this.#byUid.get(uid);
    if (record === undefined) return;
    this.#byUid.delete(uid);
    this.#countUnready(record, -1);
    const onNode = this.#byNode.get(record.node);
    const index = onNode?.indexOf(record) ?? -1;
    if (onNode === undefined || index < 0) return;
    onNode.splice(index, 1);
    if (onNode.length === 0) this.#byNode.delete(record.node);
  }

  #countUnready(record: Readonly<PodRecord>, by: 1 | -1): void {
    const owner = record.controller?.uid;
    if (record.ready || owner === undefined) return;
    const count = (this.#unready.get(owner) ?? 0) + by;
    if (count > 0) this.#unready.set(owner, count);
    else this.#unready.delete(owner);
  }

  /** The hints of the pods targeting the node named `node`. */
  podsOn(node: string): PodHint[] {
    return (this.#byNode.get(node) ?? []).map(podHintFrom);
  }
}
