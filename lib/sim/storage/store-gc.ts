/**
 * The garbage collector and namespace controller of kube-controller-manager, reduced to what the
 * store needs (pkg/controller/garbagecollector/garbagecollector.go attemptToDeleteItem,
 * orphanDependents, processDeletingDependentsItem; pkg/controller/namespace/deletion): dependents of
 * deleted owners are deleted, orphaned or waited for (Background, Orphan, Foreground), dependents of
 * owners that never existed are deleted, and terminating namespaces are emptied then removed.
 * Like the real one it works asynchronously, a moment after the change that caused the work.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';
import { resources } from '../schema/resources.ts';
import { asRecord } from '../schema/store-json.ts';
import type { KubeObject, StoreEvent } from '../schema/store-types.ts';
import type { ObjectRef } from './object-ref.ts';
import type { StoreCore } from './store-core.ts';
import { deleteObject } from './store-delete.ts';
import { type OwnerWorkCollector, ownerWork } from './store-gc-owner.ts';
import { mutateObject } from './store-mutate.ts';

const refId = (r: ObjectRef): string => `${r.key}\u0000${r.namespace ?? ''}\u0000${r.name}`;

/** The garbage collector of one store. */
export class GarbageCollector implements OwnerWorkCollector {
  /** owner uid → dependents (by refId). */
  readonly dependents = new Map<string, Map<string, ObjectRef>>();
  private readonly queue = new Map<string, () => void>();
  private scheduled = false;
  private waiters: (() => void)[] = [];

  constructor(readonly core: StoreCore) {
    core.afterChange = (event) => this.observe(event);
  }

  /** Resolves once no garbage-collection work is queued. */
  idle(): Promise<void> {
    if (this.queue.size === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The dependents of `uid` currently stored. */
  dependentsOf(uid: string): ObjectRef[] {
    return [...(this.dependents.get(uid)?.values() ?? [])];
  }

  /** Deletes through the store, ignoring objects already gone. */
  delete(ref: ObjectRef, policy: 'Background' | 'Foreground' | 'Orphan' | undefined): void {
    if (!this.core.find(ref.key, ref.namespace, ref.name)) return;
    deleteObject(this.core, ref.key, ref.namespace, ref.name, policy ? { propagationPolicy: policy } : {});
  }

  /** Edits through the store's in-process mutate. */
  mutate(ref: ObjectRef, change: (obj: KubeObject) => void): void {
    mutateObject(this.core, ref.key, ref.namespace, ref.name, change);
  }

  /** Queues `task` under `id` (later tasks with the same id replace earlier ones). */
  enqueue(id: string, task: () => void): void {
    this.queue.set(id, task);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    const tasks = [...this.queue.values()];
    this.queue.clear();
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        console.error('garbage collection step failed', error);
      }
    }
    this.scheduled = false;
    if (this.queue.size > 0) {
      this.scheduled = true;
      setImmediate(() => this.drain());
      return;
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Keeps the dependents index current and queues the work a change calls for. */
  private observe(event: StoreEvent): void {
    const ref: ObjectRef = {
      key: event.key,
      namespace: event.object.metadata.namespace,
      name: event.object.metadata.name ?? '',
    };
    this.reindex(
      ref,
      event.oldObject?.metadata.ownerReferences ?? [],
      event.type === 'DELETED' ? [] : (event.object.metadata.ownerReferences ?? []),
    );
    const uid = event.object.metadata.uid ?? '';
    if (event.type === 'DELETED') {
      for (const dependent of this.dependentsOf(uid))
        this.enqueue(`dep:${refId(dependent)}`, () => this.attemptToDelete(dependent));
      for (const owner of event.object.metadata.ownerReferences ?? []) this.enqueueOwner(owner.uid);
      if (event.object.metadata.namespace) this.enqueueNamespace(event.object.metadata.namespace);
      return;
    }
    const owners = event.object.metadata.ownerReferences ?? [];
    if (owners.some((o) => !this.core.byUid.has(o.uid)))
      this.enqueue(`dep:${refId(ref)}`, () => this.attemptToDelete(ref));
    if (event.object.metadata.deletionTimestamp) {
      this.enqueueOwner(uid);
      if (event.key === 'namespaces') this.enqueueNamespace(ref.name);
    }
  }

  private reindex(
    ref: ObjectRef,
    before: readonly V1OwnerReference[],
    after: readonly V1OwnerReference[],
  ): void {
    const id = refId(ref);
    for (const o of before) this.dependents.get(o.uid)?.delete(id);
    for (const o of after) {
      let deps = this.dependents.get(o.uid);
      if (!deps) {
        deps = new Map();
        this.dependents.set(o.uid, deps);
      }
      deps.set(id, ref);
    }
  }

  private enqueueOwner(uid: string): void {
    const location = this.core.byUid.get(uid);
    if (!location) return;
    this.enqueue(`owner:${uid}`, () => ownerWork(this, uid));
  }

  private enqueueNamespace(namespace: string): void {
    const ns = this.core.find('namespaces', undefined, namespace);
    if (ns?.metadata.deletionTimestamp)
      this.enqueue(`ns:${namespace}`, () => this.finalizeNamespace(namespace));
  }

  /** attemptToDeleteItem: delete when every owner is gone, drop references to the owners that are. */
  attemptToDelete(ref: ObjectRef): void {
    const obj = this.core.find(ref.key, ref.namespace, ref.name);
    if (!obj || obj.metadata.deletionTimestamp) return;
    const refs = obj.metadata.ownerReferences ?? [];
    const dangling = refs.filter((o) => !this.core.byUid.has(o.uid));
    if (dangling.length === 0) return;
    if (dangling.length < refs.length) {
      this.mutate(ref, (o) => {
        o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r) =>
          this.core.byUid.has(r.uid),
        );
      });
      return;
    }
    const finalizers = obj.metadata.finalizers ?? [];
    const policy = finalizers.includes('orphan')
      ? 'Orphan'
      : finalizers.includes('foregroundDeletion')
        ? 'Foreground'
        : 'Background';
    this.delete(ref, policy);
  }

  /** The namespace controller: delete everything in a terminating namespace, then the namespace. */
  private finalizeNamespace(namespace: string): void {
    let remaining = 0;
    for (const r of resources) {
      if (!r.namespaced) continue;
      for (const obj of this.core.table(r.key).select(namespace, [], [])) {
        remaining += 1;
        if (!obj.metadata.deletionTimestamp)
          this.delete({ key: r.key, namespace, name: obj.metadata.name ?? '' }, undefined);
      }
    }
    if (remaining > 0) return;
    const ref: ObjectRef = { key: 'namespaces', namespace: undefined, name: namespace };
    this.mutate(ref, (ns) => {
      const spec = asRecord(ns.spec) ?? {};
      ns.spec = { ...spec, finalizers: [] };
      ns.metadata.finalizers = (ns.metadata.finalizers ?? []).filter(
        (f) => f !== 'orphan' && f !== 'foregroundDeletion',
      );
    });
    const ns = this.core.find('namespaces', undefined, namespace);
    if (ns && (ns.metadata.finalizers ?? []).length === 0) {
      this.core.remove('namespaces', ns);
    }
  }
}
