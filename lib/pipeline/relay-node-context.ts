/**
 * What the relay knows around each node: everynode's pods by the node they target and the version
 * of every managed DaemonSet, fed by the pod and DaemonSet watches, so a node event can carry the
 * hints of `node-hints.ts`. A view as fresh as the relay's watches, like upstream's informers.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../core/daemon-pod.ts';
import type { WatchedObjects, WatchedResource } from '../kube/kube-port.ts';
import { MAX_NODE_HINTS_BYTES, type NodeHints } from '../messages/node-hints.ts';
import { nodeHintOf, type PodHint, podHintOf } from '../messages/pair-hints.ts';
import type { ObjectEvent } from './relay-cache.ts';

interface Identity {
  uid?: string;
  resourceVersion?: string;
}

function identity(object: unknown): Identity {
  return (object as { metadata?: Identity }).metadata ?? {};
}

/** Pod hints by target node, and DaemonSet versions by uid. */
export class RelayNodeContext {
  readonly #podsByNode = new Map<string, Map<string, PodHint>>();
  /** The node each pod uid was filed under, to move or drop it. */
  readonly #nodeOfPod = new Map<string, string>();
  readonly #daemonSets = new Map<string, string>();

  /** Replaces what is known of `resource` by its listed `objects` (nodes are not kept). */
  seed<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void {
    if (resource === 'pods') {
      this.#podsByNode.clear();
      this.#nodeOfPod.clear();
      for (const pod of objects) this.#putPod(pod as V1Pod);
    } else if (resource === 'daemonsets') {
      this.#daemonSets.clear();
      for (const ds of objects) this.#putDaemonSet(ds);
    }
  }

  /** Follows one watch event of `resource`. */
  observe<R extends WatchedResource>(resource: R, event: Readonly<ObjectEvent<WatchedObjects[R]>>): void {
    if (resource === 'pods') {
      if (event.type === 'DELETED') this.#dropPod(identity(event.object).uid ?? '');
      else this.#putPod(event.object as V1Pod);
    } else if (resource === 'daemonsets') {
      if (event.type === 'DELETED') this.#daemonSets.delete(identity(event.object).uid ?? '');
      else this.#putDaemonSet(event.object);
    }
  }

  /**
   * The hints for an event of `node` seen at `observedAt`, or undefined when they would exceed
   * {@link MAX_NODE_HINTS_BYTES} (the `node` step then reads instead).
   */
  hintsFor(node: Readonly<V1Node>, observedAt: Date): NodeHints | undefined {
    const name = node.metadata?.name ?? '';
    const hints: NodeHints = {
      observedAt: observedAt.toISOString(),
      node: nodeHintOf(node),
      daemonSets: [...this.#daemonSets].map(([uid, resourceVersion]) => ({ uid, resourceVersion })),
      pods: [...(this.#podsByNode.get(name)?.values() ?? [])],
    };
    return JSON.stringify(hints).length <= MAX_NODE_HINTS_BYTES ? hints : undefined;
  }

  #putDaemonSet(ds: unknown): void {
    const { uid, resourceVersion } = identity(ds);
    if (uid && resourceVersion) this.#daemonSets.set(uid, resourceVersion);
  }

  #putPod(pod: Readonly<V1Pod>): void {
    const uid = pod.metadata?.uid ?? '';
    this.#dropPod(uid);
    const node = targetNodeName(pod);
    if (!uid || !node) return;
    let pods = this.#podsByNode.get(node);
    if (pods === undefined) {
      pods = new Map();
      this.#podsByNode.set(node, pods);
    }
    pods.set(uid, podHintOf(pod));
    this.#nodeOfPod.set(uid, node);
  }

  #dropPod(uid: string): void {
    const node = this.#nodeOfPod.get(uid);
    if (node === undefined) return;
    this.#nodeOfPod.delete(uid);
    const pods = this.#podsByNode.get(node);
    pods?.delete(uid);
    if (pods?.size === 0) this.#podsByNode.delete(node);
  }
}
