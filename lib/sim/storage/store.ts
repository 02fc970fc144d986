/**
 * The simulated cluster's object store: the in-memory etcd + registry of the simulated API
 * server. Used in-process by the scheduler, kubelets and controllers, and by the HTTP layer.
 */
import { SimApiError } from '../schema/api-error.ts';
import type { ResourceKey } from '../schema/resources.ts';
import { cloneJson } from '../schema/store-json.ts';
import type {
  CreateOptions,
  DeleteOptions,
  KubeObject,
  ListFilter,
  PatchType,
  StoreEvent,
  UpdateOptions,
} from '../schema/store-types.ts';
import { parseFieldSelector, parseLabelSelectorQuery } from './selectors.ts';
import { StoreCore } from './store-core.ts';
import { type DeleteResult, deleteObject } from './store-delete.ts';
import { checkSelectableField } from './store-fields.ts';
import { GarbageCollector } from './store-gc.ts';
import type { HistoryEntry } from './store-history.ts';
import { mutateObject, rewriteObject } from './store-mutate.ts';
import { patchObject } from './store-patch.ts';
import { stateAt } from './store-state-at.ts';
import { sortByKey } from './store-table.ts';
import { createObject, updateObject } from './store-write.ts';

export { SimApiError } from '../schema/api-error.ts';
export type {
  CreateOptions,
  DeleteOptions,
  KubeObject,
  ListFilter,
  PatchType,
  StoreEvent,
  UpdateOptions,
} from '../schema/store-types.ts';

/** Options of a ClusterStore. */
export interface ClusterStoreOptions {
  /** Changes kept per resource for watches; older resourceVersions get 410 Expired. Default 10,000. */
  watchWindow?: number;
  /** The clock used for timestamps; default the system clock. */
  now?: () => Date;
  /** Create the namespaces every cluster has (default, kube-system, kube-public, kube-node-lease); default true. */
  systemNamespaces?: boolean;
}

/** The namespaces a fresh cluster has. */
const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** An in-memory Kubernetes object store with the registry semantics of the real API server. */
export class ClusterStore {
  private readonly core: StoreCore;
  private readonly gc: GarbageCollector;

  constructor(options: ClusterStoreOptions = {}) {
    this.core = new StoreCore(options);
    this.gc = new GarbageCollector(this.core);
    if (options.systemNamespaces !== false) {
      for (const name of systemNamespaces)
        this.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  /** The current global resourceVersion (the version of the latest write). */
  get resourceVersion(): number {
    return this.core.resourceVersion;
  }

  /** A deep copy of the object, or undefined when it does not exist. */
  get(key: ResourceKey, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.core.find(key, namespace, name);
    return found ? cloneJson(found) : undefined;
  }

  /** The stored object itself (frozen; do not change it), or undefined. Cheaper than get. */
  peek(key: ResourceKey, namespace: string | undefined, name: string): Readonly<KubeObject> | undefined {
    return this.core.find(key, namespace, name);
  }

  /** Deep copies of the matching objects, sorted by namespace then name (etcd key order). */
  list(key: ResourceKey, filter: Readonly<ListFilter> = {}): KubeObject[] {
    return this.view(key, filter).map((o) => cloneJson(o));
  }

  /**
   * The matching stored objects themselves (frozen; do not change them), sorted by namespace then
   * name, from the indexes (namespace, labels, spec.nodeName) rather than a scan where possible.
   * Throws 400 SimApiError on a malformed selector or a field that cannot be selected.
   */
  view(key: ResourceKey, filter: Readonly<ListFilter> = {}): readonly KubeObject[] {
    const labels = parseLabelSelectorQuery(filter.labelSelector ?? '');
    const fields = parseFieldSelector(filter.fieldSelector ?? '');
    for (const f of fields) checkSelectableField(key, f.field);
    return sortByKey(this.core.table(key).select(filter.namespace || undefined, labels, fields));
  }

  /**
   * Creates an object (see the registry rules in store-write.ts; fields its schema does not know are
   * dropped, reported to `options.onUnknownFields`); returns a copy of what was stored.
   */
  create(key: ResourceKey, obj: Readonly<KubeObject>, options?: Readonly<CreateOptions>): KubeObject {
    return cloneJson(this.createShared(key, obj, options));
  }

  /** create, returning the stored object itself (frozen; do not change it). Cheaper than create. */
  createShared(
    key: ResourceKey,
    obj: Readonly<KubeObject>,
    options?: Readonly<CreateOptions>,
  ): Readonly<KubeObject> {
    return createObject(this.core, key, obj, options);
  }

  /**
   * Replaces an object, or its status with `subresource: 'status'` (unknown fields dropped as on
   * create); returns a copy of the result; 409 on a stale resourceVersion.
   */
  update(key: ResourceKey, obj: Readonly<KubeObject>, options?: Readonly<UpdateOptions>): KubeObject {
    return cloneJson(this.updateShared(key, obj, options));
  }

  /** update, returning the stored object itself (frozen; do not change it). Cheaper than update. */
  updateShared(
    key: ResourceKey,
    obj: Readonly<KubeObject>,
    options?: Readonly<UpdateOptions>,
  ): Readonly<KubeObject> {
    return updateObject(this.core, key, obj, options);
  }

  /** Applies a JSON, merge or strategic merge patch and writes the result like update. */
  patch(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    body: unknown,
    options?: Readonly<UpdateOptions>,
  ): KubeObject {
    return cloneJson(this.patchShared(key, namespace, name, patchType, body, options));
  }

  /** patch, returning the stored object itself (frozen; do not change it). Cheaper than patch. */
  patchShared(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    body: unknown,
    options?: Readonly<UpdateOptions>,
  ): Readonly<KubeObject> {
    return patchObject(this.core, key, namespace, name, patchType, body, options);
  }

  /** Deletes or starts deleting an object; returns it as it is now (or its final state when gone). */
  delete(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    options?: Readonly<DeleteOptions>,
  ): KubeObject {
    return cloneJson(deleteObject(this.core, key, namespace, name, options).object);
  }

  /** delete, also telling whether the object is gone (the HTTP layer answers differently). */
  deleteWithResult(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    options?: Readonly<DeleteOptions>,
  ): DeleteResult {
    return deleteObject(this.core, key, namespace, name, options);
  }

  /**
   * In-process read-modify-write without conflict check or validation: `change` edits a copy;
   * with `subresource: 'status'` only its status is kept. Returns a copy of the result, or
   * undefined when the object does not exist. A change that changes nothing writes nothing.
   */
  mutate(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    change: (obj: KubeObject) => void,
    options?: Readonly<UpdateOptions>,
  ): KubeObject | undefined {
    const result = this.mutateShared(key, namespace, name, change, options);
    return result ? cloneJson(result) : undefined;
  }

  /** mutate, returning the stored object itself (frozen; do not change it). Cheaper than mutate. */
  mutateShared(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    change: (obj: KubeObject) => void,
    options?: Readonly<UpdateOptions>,
  ): Readonly<KubeObject> | undefined {
    return mutateObject(this.core, key, namespace, name, change, options);
  }

  /**
   * In-process write without mutate's copy: `rewrite` gets the stored object (frozen) and returns
   * the next version, keeping by reference the parts it does not change (never changing them), or
   * undefined to write nothing. Otherwise as mutate; returns the stored result (frozen).
   */
  rewriteShared(
    key: ResourceKey,
    namespace: string | undefined,
    name: string,
    rewrite: (old: Readonly<KubeObject>) => KubeObject | undefined,
    options?: Readonly<UpdateOptions>,
  ): Readonly<KubeObject> | undefined {
    return rewriteObject(this.core, key, namespace, name, rewrite, options);
  }

  /** Calls `listener` synchronously after every change, in resourceVersion order; returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    return this.core.subscribe(listener);
  }

  /** The changes of `key` after `resourceVersion`, oldest first; 410 Expired when they left the window. */
  changesSince(key: ResourceKey, resourceVersion: number): HistoryEntry[] {
    return this.core.history(key).since(resourceVersion);
  }

  /** The objects of `key` as they were at `resourceVersion` (for resourceVersionMatch=Exact); 410 when too old. */
  viewAt(
    key: ResourceKey,
    resourceVersion: number,
    filter: Readonly<ListFilter> = {},
  ): readonly KubeObject[] {
    if (resourceVersion > this.resourceVersion)
      throw SimApiError.tooLargeResourceVersion(resourceVersion, this.resourceVersion);
    return sortByKey(stateAt(this.view(key, {}), this.changesSince(key, resourceVersion), filter, key));
  }

  /** Resolves once the garbage collector and namespace controller have nothing queued. */
  settled(): Promise<void> {
    return this.gc.idle();
  }
}
