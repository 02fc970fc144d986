/**
 * The port through which the pipeline reads and writes the Kubernetes API: what the reconciler and
 * the relay need, and nothing else. Its adapter over `@kubernetes/client-node` is
 * `createKubePort`; every method throws the typed errors of `kube-api-errors.ts`.
 */
import type {
  CoreV1Event,
  V1ControllerRevision,
  V1Node,
  V1NodeCondition,
  V1OwnerReference,
  V1Pod,
  V1PodCondition,
  V1Taint,
} from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import type { JsonPatchOperation } from '../core/in-place/in-place-patch.ts';
import type { ManagedKind } from './managed-kind.ts';

/** How fresh a read must be. */
export interface ReadOptions {
  /**
   * Serve the read from the API server's watch cache (`resourceVersion=0`): cheaper for the API
   * server and etcd, but possibly behind. Only for reads where a stale answer is safe, because the
   * write that follows carries its own guard (a deterministic name, preconditions, resourceVersion).
   */
  readonly allowStale?: boolean;
}

/** Which objects to list. */
export interface ListOptions extends ReadOptions {
  /** A label selector in its text form (`a=b,c in (d)`). */
  readonly labelSelector?: string;
  /** A field selector in its text form (`spec.nodeName=n1`). */
  readonly fieldSelector?: string;
  /** Page size; the API server ignores it for reads served from the watch cache. */
  readonly limit?: number;
  /** The `continue` token of the previous page. */
  readonly continue?: string;
  /**
   * List at a version not older than this one (`resourceVersion=<v>&resourceVersionMatch=
   * NotOlderThan`, which replaces `allowStale`). The API server waits a few seconds for its watch
   * cache to reach it, then answers TooLargeResourceVersionError: the version is one this cluster
   * never reached (a checkpoint of another cluster, or from before its etcd was restored).
   */
  readonly notOlderThan?: string;
}

/** A list answer: the items, the list's resourceVersion (to watch from), and the next page's token. */
export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

/**
 * Which cluster the API server serves: its URL and the uid of its `kube-system` namespace, which
 * a cluster keeps for its whole life (a restore of its etcd keeps it too) and a new cluster, even
 * one under the same name or URL, does not share.
 */
export interface ClusterIdentity {
  /** The API server's base URL, without a trailing slash. */
  readonly server: string;
  readonly kubeSystemUid: string;
}

/** The identity of a namespaced object a write is guarded by. */
export interface ObjectPreconditions {
  readonly namespace: string;
  readonly name: string;
  /** The write fails with a ConflictError when the object now has another uid (it was re-created). */
  readonly uid: string;
  /** The write fails with a ConflictError when the object changed since this version. */
  readonly resourceVersion?: string;
}

/** Options of a delete. */
export interface DeleteOptions {
  /** Garbage-collection of dependents (default: the resource's default, Background for pods). */
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly gracePeriodSeconds?: number;
}

/**
 * The resources the relay watches. `daemonsets` is the managed kind. Changes of the first three
 * become triggers ({@link TriggeringResource}); ControllerRevisions only feed the relay's hints.
 */
export type WatchedResource = 'nodes' | 'pods' | 'daemonsets' | 'controllerrevisions';

/** The watched resources whose changes become triggers. */
export type TriggeringResource = Exclude<WatchedResource, 'controllerrevisions'>;

/** The object type of each watched resource. */
export interface WatchedObjects {
  nodes: V1Node;
  pods: V1Pod;
  daemonsets: DaemonSet;
  controllerrevisions: V1ControllerRevision;
}

/** Which changes to watch. */
export interface WatchOptions {
  /** Changes after this version: a list's resourceVersion, or the last event's or bookmark's. */
  readonly resourceVersion: string;
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** The API server ends the watch after this long (default 300 s); the relay then resumes. */
  readonly timeoutSeconds?: number;
  /** Ends the watch early. */
  readonly signal?: AbortSignal;
  /**
   * Called once the API server answered the watch: the changes it held by then (after the version
   * asked for) are on their way, sent before any later one.
   */
  readonly onOpen?: () => void;
}

/**
 * One watch event: a change of an object, or a BOOKMARK that only moves the resourceVersion on
 * (bookmarks are always asked for, so a quiet watch can resume without a 410).
 */
export type WatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T; readonly resourceVersion: string }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string };

/** A pod's new ownerReferences, written only if the pod is still the one planned on. */
export interface OwnerReferencesPatch extends ObjectPreconditions {
  readonly ownerReferences: readonly V1OwnerReference[];
  /** Labels set (a value) or removed (null) in the same write. */
  readonly labels?: Readonly<Record<string, string | null>>;
}

/** Everything everynode does with the Kubernetes API. */
export interface KubePort {
  /** The DaemonSet resource read and written by the DaemonSet methods. */
  readonly managedKind: ManagedKind;

  /** The DaemonSet, or undefined when there is none (404). */
  getDaemonSet(namespace: string, name: string, options?: ReadOptions): Promise<DaemonSet | undefined>;
  /** DaemonSets of the managed kind, in `namespace` or in all namespaces. */
  listDaemonSets(options?: ListOptions & { readonly namespace?: string }): Promise<ListResult<DaemonSet>>;
  /**
   * Writes `daemonSet.status` through the status subresource; the DaemonSet's
   * `metadata.resourceVersion` is the precondition (ConflictError when it changed). Returns the
   * DaemonSet as stored.
   */
  updateDaemonSetStatus(daemonSet: Readonly<DaemonSet>): Promise<DaemonSet>;
  /**
   * Sets (a value) or removes (null) annotations of the DaemonSet, only if it still has `uid` and
   * `resourceVersion` (ConflictError otherwise): where an apps/v1 DaemonSet keeps what its status
   * schema has no field for (the safe rollout's record). Returns the DaemonSet as stored.
   */
  patchDaemonSetAnnotations(
    target: ObjectPreconditions,
    annotations: Readonly<Record<string, string | null>>,
  ): Promise<DaemonSet>;

  /** The node, or undefined when there is none (404). */
  getNode(name: string, options?: ReadOptions): Promise<V1Node | undefined>;
  /** Nodes. */
  listNodes(options?: ListOptions): Promise<ListResult<V1Node>>;
  /**
   * Writes a node readiness gate in one request: the node's whole new taint list (others' taints
   * included) and `annotations` set beside it, only if the node is still at `resourceVersion`
   * (ConflictError when it changed: read it again and decide again). Returns the node as stored.
   */
  patchNodeGate(
    name: string,
    resourceVersion: string,
    taints: readonly V1Taint[],
    annotations?: Readonly<Record<string, string>>,
  ): Promise<V1Node>;
  /**
   * Sets one condition of the node through `nodes/status`, merged by its type: the other
   * conditions (the kubelet's) are left as they are. Returns the node as stored.
   */
  patchNodeCondition(name: string, condition: Readonly<V1NodeCondition>): Promise<V1Node>;

  /** Pods in `namespace` (all namespaces when absent). */
  listPods(options?: ListOptions & { readonly namespace?: string }): Promise<ListResult<V1Pod>>;
  /** Creates `pod` in its namespace; AlreadyExistsError when the name is taken. Returns the created pod. */
  createPod(pod: Readonly<V1Pod>): Promise<V1Pod>;
  /**
   * Deletes the pod if it still has `uid` (and `resourceVersion`, when given): ConflictError when it
   * changed, NotFoundError when it is gone.
   */
  deletePod(target: ObjectPreconditions, options?: DeleteOptions): Promise<void>;
  /**
   * Replaces the pod's ownerReferences (adoption or release) if it still has `uid` and
   * `resourceVersion`; ConflictError otherwise. Returns the patched pod.
   */
  patchPodOwnerReferences(patch: OwnerReferencesPatch): Promise<V1Pod>;
  /**
   * Applies the JSON patch `operations` (RFC 6902) to the pod; returns the pod as stored. Its `test`
   * operations are its guard: one that fails, or a path the pod lacks, is an InvalidError naming
   * no field (`isPatchNotApplied`), as is nothing else; a change the API server refuses is an
   * InvalidError naming its fields. NotFoundError when the pod is gone.
   */
  jsonPatchPod(namespace: string, name: string, operations: readonly JsonPatchOperation[]): Promise<V1Pod>;
  /**
   * Applies the JSON patch `operations` to the pod through its `resize` subresource, which takes
   * only the containers' resources (and resizePolicy); returns the pod as stored. Errors as
   * {@link jsonPatchPod}'s; a resize pods/resize refuses (a QoS class change, a resource removed) is
   * an InvalidError naming its fields.
   */
  jsonPatchPodResize(
    namespace: string,
    name: string,
    operations: readonly JsonPatchOperation[],
  ): Promise<V1Pod>;

  /**
   * Sets `conditions` of the pod through `pods/status`, merged by their type (the kubelet's stay),
   * if it still has `target.uid` (and `resourceVersion`, when given): ConflictError otherwise,
   * NotFoundError when it is gone. Returns the pod as stored.
   */
  patchPodConditions(
    target: ObjectPreconditions,
    conditions: readonly Readonly<V1PodCondition>[],
  ): Promise<V1Pod>;

  /** ControllerRevisions in `namespace`, or in every namespace when it is undefined. */
  listControllerRevisions(
    namespace: string | undefined,
    options?: ListOptions,
  ): Promise<ListResult<V1ControllerRevision>>;
  /** Creates the revision; AlreadyExistsError when the name is taken. */
  createControllerRevision(revision: Readonly<V1ControllerRevision>): Promise<V1ControllerRevision>;
  /** Replaces the revision; its `metadata.resourceVersion` is the precondition. */
  updateControllerRevision(revision: Readonly<V1ControllerRevision>): Promise<V1ControllerRevision>;
  /** Deletes the revision if it still has `uid` (and `resourceVersion`, when given). */
  deleteControllerRevision(target: ObjectPreconditions): Promise<void>;

  /**
   * The identity of the cluster (one GET of the `kube-system` namespace), which tells a checkpoint
   * of this cluster from one of another.
   */
  getClusterIdentity(): Promise<ClusterIdentity>;

  /** Records a core/v1 Event (build it with `eventFor`). */
  createEvent(event: Readonly<CoreV1Event>): Promise<void>;

  /**
   * The changes of `resource` after `options.resourceVersion`, with bookmarks, until the API server
   * ends the watch (the iteration then ends) or `options.signal` aborts. A watch whose
   * resourceVersion is too old throws GoneError: list again and watch from the new list. A watch
   * from a version the server has not reached yet sends nothing until the server passes it: check
   * such a version first with a list `notOlderThan` it.
   */
  watch<R extends WatchedResource>(
    resource: R,
    options: WatchOptions,
  ): AsyncIterable<WatchEvent<WatchedObjects[R]>>;
}
