/**
 * What the relay knows around each node: its scheduling facts, everynode's pods by the node they
 * target and the version of every managed DaemonSet, fed by the relay's watches, so a node event can
 * carry the hints of `node-hints.ts` and a pod event the hints of its pair (`pair-hints.ts`). A view
 * as fresh as the relay's watches, like upstream's informers.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../core/controller-ref.ts';
import { targetNodeName } from '../core/daemon-pod.ts';
import type { WatchedObjects, WatchedResource } from '../kube/kube-port.ts';
import { MAX_NODE_HINTS_BYTES, type NodeHints } from '../messages/node-hints.ts';
import {
  type NodeHint,
  nodeHintOf,
  type PairHints,
  type PodHint,
  podHintOf,
} from '../messages/pair-hints.ts';
import type { ObjectEvent } from './relay-cache.ts';

interface Identity {
  uid?: string;
  resourceVersion?: string;
  generation?: number;
}

/** A managed DaemonSet's version as last seen. */
interface DaemonSetVersion {
  readonly resourceVersion: string;
  readonly generation?: number;
}

function identity(object: unknown): Identity {
  return (object as { metadata?: Identity }).metadata ?? {};
}

/** Node hints by name, pod hints by target node, and DaemonSet versions by uid. */
export class RelayNodeContext {
  readonly #nodes = new Map<string, NodeHint>();
  readonly #podsByNode = new Map<string, Map<string, PodHint>>();
  /** The node each pod uid was filed under, to move or drop it. */
  readonly #nodeOfPod = new Map<string, string>();
  readonly #daemonSets = new Map<string, DaemonSetVersion>();

  /** Replaces what is known of `resource` by its listed `objects`. */
  seed<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void {
    if (resource === 'nodes') {
      this.#nodes.clear();
      for (const node of objects) this.#putNode(node as V1Node);
    } else if (resource === 'pods') {
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
    if (resource === 'nodes') {
      if (event.type === 'DELETED') this.#nodes.delete((event.object as V1Node).metadata?.name ?? '');
      else this.#putNode(event.object as V1Node);
    } else if (resource === 'pods') {
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
      daemonSets: [...this.#daemonSets].map(([uid, { resourceVersion }]) => ({ uid, resourceVersion })),
      pods: this.#podsOn(name),
    };
    return JSON.stringify(hints).length <= MAX_NODE_HINTS_BYTES ? hints : undefined;
  }

  /**
   * The hints of the pair of an event of `pod` at `resourceVersion` seen at `observedAt` (the event
   * already followed): its DaemonSet's version, the node (null when the relay does not know it: the
   * pair step then asks the API server) and the DaemonSet's pods on the node. The revision hash is left to the
   * pair step (its cache, else one LIST). Undefined for a pod without a managed controller or node.
   */
  pairHintsFor(pod: Readonly<V1Pod>, observedAt: Date, resourceVersion?: string): PairHints | undefined {
    const owner = controllerOf(pod)?.uid;
    const node = targetNodeName(pod);
    const ds = owner === undefined ? undefined : this.#daemonSets.get(owner);
    if (ds === undefined || node === undefined) return undefined;
    const pods = this.#podsOn(node).filter((p) => p.controller?.uid === owner);
    return {
      observedAt: observedAt.toISOString(),
      daemonSet: {
        resourceVersion: ds.resourceVersion,
        ...(ds.generation !== undefined ? { generation: ds.generation } : {}),
      },
      ...(resourceVersion ? { podsResourceVersion: resourceVersion } : {}),
      node: this.#nodes.get(node) ?? null,
      pods,
    };
  }

  /** The pod hints filed under `node`. */
  #podsOn(node: string): PodHint[] {
    return [...(this.#podsByNode.get(node)?.values() ?? [])];
  }

  #putNode(node: Readonly<V1Node>): void {
    const name = node.metadata?.name;
    if (name) this.#nodes.set(name, nodeHintOf(node));
  }

  #putDaemonSet(ds: unknown): void {
    const { uid, resourceVersion, generation } = identity(ds);
    if (uid && resourceVersion)
      this.#daemonSets.set(uid, { resourceVersion, ...(generation !== undefined ? { generation } : {}) });
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
