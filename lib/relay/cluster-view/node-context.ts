/**
 * What the relay knows around each node: its scheduling facts, everynode's pods by the node they
 * target, every managed DaemonSet and the ControllerRevisions, fed by the relay's watches, so a node
 * event can carry the hints of `node-hints.ts` and a pod event the hints of its pair
 * (`pair-hints.ts`). A view as fresh as the relay's watches, like upstream's informers. Every node
 * event is followed, the ones dropped as triggers too (the node step's own gate writes among them),
 * so a node's hint shows its readiness gate state as of its resourceVersion (`node-gate-hint.ts`).
 */
import type { V1ControllerRevision, V1Node, V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { nodeReadinessOf } from '../../core/node-gates/gate-declaration.ts';
import { toJson } from '../../kube/codec/object-codec.ts';
import type { WatchedObjects, WatchedResource } from '../../kube/kube-port.ts';
import { compareResourceVersions } from '../../kube/resource-version.ts';
import { hintsWithin, jsonBytes } from '../../messages/hint-caps.ts';
import { type DaemonSetVersion, MAX_NODE_HINTS_BYTES, type NodeHints } from '../../messages/node-hints.ts';
import { type NodeHint, nodeHintOf, type PairHints, type PodHint } from '../../messages/pair-hints.ts';
import type { ObjectEvent } from './facet-cache.ts';
import { type Seeding, seedingInPlace } from './list-seeding.ts';
import { RelayPodIndex } from './pod-index.ts';
import { keptRevisionOf, RelayRevisionHashes } from './revision-hashes.ts';
import { Interner } from './shared-values.ts';

interface Identity {
  uid?: string;
  resourceVersion?: string;
}

function identity(object: unknown): Identity {
  return (object as { metadata?: Identity }).metadata ?? {};
}

/**
 * Node hints by name, pods by target node (compact records, `cluster-view/pod-index.ts`), DaemonSets by
 * uid, and ControllerRevisions by namespace (once watched: a relay that does not watch them hints
 * no revision hash).
 */
export class RelayNodeContext {
  readonly #nodes = new Map<string, NodeHint>();
  readonly #pods = new RelayPodIndex(new Interner());
  readonly #daemonSets = new Map<string, DaemonSet>();
  /** The uids of the DaemonSets in `#daemonSets` with a valid node readiness gate. */
  readonly #gating = new Set<string>();
  readonly #revisions = new RelayRevisionHashes();
  #nodesVersion: string | undefined;

  /**
   * The resourceVersion of the newest node change that can move a placement the relay forwarded,
   * or of its latest node LIST: what a `daemonset` step's node LIST must be at least as new as to
   * be planned on again (docs/design.md, 15. The DaemonSet step).
   */
  get nodesVersion(): string | undefined {
    return this.#nodesVersion;
  }

  /** Moves {@link nodesVersion} up to `resourceVersion` (never back). */
  noteNodeChange(resourceVersion: string): void {
    const current = this.#nodesVersion;
    if (current === undefined || compareResourceVersions(resourceVersion, current) !== -1)
      this.#nodesVersion = resourceVersion;
  }

  /** Replaces what is known of `resource` by its listed `objects`. */
  seed<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void {
    const seeding = this.seeding(resource);
    seeding.add(objects);
    seeding.commit();
  }

  /**
   * A seeding of `resource` from a LIST taken page by page (`cluster-view/list-seeding.ts`): nodes and pods are
   * taken in as their pages come (as hints, as records: a page's objects need not outlive it), and
   * those the list did not show forgotten at the commit; DaemonSets and revisions, a few, are kept
   * whole until the commit replaces what was known of them.
   */
  seeding<R extends WatchedResource>(resource: R): Seeding<WatchedObjects[R]> {
    if (resource === 'nodes') {
      const put = (node: Readonly<WatchedObjects[R]>) => putNode(this.#nodes, node as V1Node);
      return seedingInPlace(this.#nodes, put, (name) => this.#nodes.delete(name));
    }
    if (resource === 'pods') return this.#pods.seeding() as Seeding<WatchedObjects[R]>;
    const listed: unknown[] = [];
    return {
      add: (objects) => {
        if (resource !== 'controllerrevisions') listed.push(...objects);
        else for (const revision of objects) listed.push(keptRevisionOf(revision as V1ControllerRevision));
      },
      commit: () => this.#seedWhole(resource, listed),
    };
  }

  /** Follows one watch event of `resource`. */
  observe<R extends WatchedResource>(resource: R, event: Readonly<ObjectEvent<WatchedObjects[R]>>): void {
    if (resource === 'nodes') {
      if (event.type === 'DELETED') this.#nodes.delete((event.object as V1Node).metadata?.name ?? '');
      else putNode(this.#nodes, event.object as V1Node);
    } else if (resource === 'pods') {
      if (event.type === 'DELETED') this.#pods.drop(identity(event.object).uid ?? '');
      else this.#pods.put(event.object as V1Pod);
    } else if (resource === 'daemonsets') {
      if (event.type === 'DELETED') this.#dropDaemonSet(identity(event.object).uid ?? '');
      else this.#putDaemonSet(event.object as DaemonSet);
    } else if (resource === 'controllerrevisions') {
      if (event.type === 'DELETED') this.#revisions.drop(event.object as V1ControllerRevision);
      else this.#revisions.put(event.object as V1ControllerRevision);
    }
  }

  /**
   * The hints for an event of `node` seen at `observedAt`: with every DaemonSet whole when they all
   * fit in {@link MAX_NODE_HINTS_BYTES} (UTF-8 bytes of JSON), else with their versions only;
   * undefined when even those exceed it (the `node` step then reads instead).
   */
  hintsFor(node: Readonly<V1Node>, observedAt: Date): NodeHints | undefined {
    return this.#hintsAround(nodeHintOf(node), observedAt);
  }

  /**
   * The hints of the node named `name` as the relay's node watch last saw it, at `observedAt` (as
   * {@link hintsFor}); undefined when the relay does not know the node or the hints would not fit.
   */
  nodeHintsFor(name: string, observedAt: Date): NodeHints | undefined {
    const node = this.#nodes.get(name);
    return node === undefined ? undefined : this.#hintsAround(node, observedAt);
  }

  /** The node named `name` as the relay's node watch last saw it (as hinted); undefined when unknown. */
  node(name: string): NodeHint | undefined {
    return this.#nodes.get(name);
  }

  /** everynode's pods targeting the node named `name`, as the relay's pod watch last saw them. */
  podsOn(name: string): PodHint[] {
    return this.#podsOn(name);
  }

  /** How many of the pods the DaemonSet with `uid` controls are not ready, as the pod watch last saw them. */
  unreadyPodsOf(uid: string): number {
    return this.#pods.unreadyOf(uid);
  }

  /** The managed DaemonSet with `uid` as the relay's watch last saw it; undefined when unknown or gone. */
  daemonSet(uid: string): DaemonSet | undefined {
    return this.#daemonSets.get(uid);
  }

  /** Every managed DaemonSet the relay's watch knows. */
  daemonSets(): DaemonSet[] {
    return [...this.#daemonSets.values()];
  }

  /**
   * True when `pod` is controlled by a managed DaemonSet with a valid node readiness gate
   * (`nodeReadinessOf`): its availability decides whether its node's gate taint is lifted.
   */
  gatesNode(pod: Readonly<V1Pod>): boolean {
    const owner = controllerOf(pod)?.uid;
    return owner !== undefined && this.#gating.has(owner);
  }

  /** Replaces the DaemonSets or the revisions by their listed `objects`. */
  #seedWhole(resource: WatchedResource, objects: readonly unknown[]): void {
    if (resource === 'daemonsets') {
      this.#daemonSets.clear();
      this.#gating.clear();
      this.#revisions.forget();
      for (const ds of objects) this.#putDaemonSet(ds as DaemonSet);
    } else if (resource === 'controllerrevisions') {
      this.#revisions.seed(objects as V1ControllerRevision[]);
    }
  }

  #hintsAround(node: NodeHint, observedAt: Date): NodeHints | undefined {
    const daemonSets = [...this.#daemonSets.values()];
    const hints = (versions: DaemonSetVersion[]): NodeHints => ({
      observedAt: observedAt.toISOString(),
      node,
      daemonSets: versions,
      pods: this.#podsOn(node.name),
    });
    const whole = hints(daemonSets.map((ds) => ({ ...this.#versionOf(ds), object: objectHintOf(ds) })));
    if (jsonBytes(whole) <= MAX_NODE_HINTS_BYTES) return whole;
    return hintsWithin(hints(daemonSets.map((ds) => this.#versionOf(ds))), MAX_NODE_HINTS_BYTES);
  }

  /**
   * The hints of the pair of an event of `pod` at `resourceVersion` seen at `observedAt` (the event
   * already followed): its DaemonSet's version and revision hash (without the revisions watched, the
   * hash is left to the pair step: its cache, else one LIST), the node (null when the relay does not
   * know it: the pair step then asks the API server) and the DaemonSet's pods on the node. Undefined
   * for a pod without a managed controller or node, and when the hints would not fit in
   * `MAX_PAIR_HINTS_BYTES` (the pair step then reads).
   */
  pairHintsFor(pod: Readonly<V1Pod>, observedAt: Date, resourceVersion?: string): PairHints | undefined {
    const owner = controllerOf(pod)?.uid;
    const node = targetNodeName(pod);
    const ds = owner === undefined ? undefined : this.#daemonSets.get(owner);
    if (ds === undefined || node === undefined) return undefined;
    const pods = this.#podsOn(node).filter((p) => p.controller?.uid === owner);
    const { generation } = ds.metadata ?? {};
    const revisionHash = this.#revisions.hashOf(ds);
    return hintsWithin({
      observedAt: observedAt.toISOString(),
      daemonSet: {
        resourceVersion: ds.metadata?.resourceVersion ?? '',
        ...(generation !== undefined ? { generation } : {}),
        ...(revisionHash !== undefined ? { revisionHash } : {}),
      },
      ...(resourceVersion ? { podsResourceVersion: resourceVersion } : {}),
      node: this.#nodes.get(node) ?? null,
      pods,
    });
  }

  /** The pod hints filed under `node`. */
  #podsOn(node: string): PodHint[] {
    return this.#pods.podsOn(node);
  }

  #putDaemonSet(ds: Readonly<DaemonSet>): void {
    const { uid, resourceVersion } = identity(ds);
    if (!uid || !resourceVersion) return;
    this.#daemonSets.set(uid, ds);
    if (nodeReadinessOf(ds) === undefined) this.#gating.delete(uid);
    else this.#gating.add(uid);
  }

  #dropDaemonSet(uid: string): void {
    this.#daemonSets.delete(uid);
    this.#gating.delete(uid);
    this.#revisions.forget(uid);
  }

  #versionOf(ds: Readonly<DaemonSet>): DaemonSetVersion {
    const revisionHash = this.#revisions.hashOf(ds);
    return {
      uid: ds.metadata?.uid ?? '',
      resourceVersion: ds.metadata?.resourceVersion ?? '',
      ...(revisionHash !== undefined ? { revisionHash } : {}),
    };
  }
}

/** Files the hint of `node` under its name in `nodes`; returns the name, if it has one. */
function putNode(nodes: Map<string, NodeHint>, node: Readonly<V1Node>): string | undefined {
  const name = node.metadata?.name;
  if (name) nodes.set(name, nodeHintOf(node));
  return name || undefined;
}

const objectHints = new WeakMap<Readonly<DaemonSet>, Record<string, unknown>>();

/**
 * `ds` as the API server sends it, less its managedFields (bookkeeping no step reads); made once per
 * watched version.
 */
function objectHintOf(ds: Readonly<DaemonSet>): Record<string, unknown> {
  const known = objectHints.get(ds);
  if (known !== undefined) return known;
  const json = toJson(ds, 'V1DaemonSet');
  const metadata = json.metadata as Record<string, unknown> | undefined;
  let hint = json;
  if (metadata?.managedFields !== undefined) {
    const { managedFields: _, ...rest } = metadata;
    hint = { ...json, metadata: rest };
  }
  objectHints.set(ds, hint);
  return hint;
}
