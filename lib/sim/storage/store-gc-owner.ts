/**
 * The garbage collector's work on an owner being deleted with the `orphan` or `foregroundDeletion`
 * finalizer (pkg/controller/garbagecollector: orphanDependents, processDeletingDependentsItem).
 */

import type { KubeObject } from '../schema/store-types.ts';
import type { ObjectRef } from './object-ref.ts';
import type { StoreCore } from './store-core.ts';

/** What the owner-side work needs of the garbage collector (store-gc.ts implements it). */
export interface OwnerWorkCollector {
  readonly core: StoreCore;
  /** The dependents of `uid` currently stored. */
  dependentsOf(uid: string): ObjectRef[];
  /** Deletes through the store, ignoring objects already gone. */
  delete(ref: ObjectRef, policy: 'Background' | 'Foreground' | 'Orphan' | undefined): void;
  /** Edits through the store's in-process mutate. */
  mutate(ref: ObjectRef, change: (obj: KubeObject) => void): void;
}

/** The ObjectRef of a stored object. */
function refOf(gc: OwnerWorkCollector, uid: string): ObjectRef | undefined {
  const location = gc.core.byUid.get(uid);
  if (!location) return undefined;
  const obj = gc.core.table(location.key).objects.get(location.id);
  if (!obj) return undefined;
  return { key: location.key, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/** Removes `finalizer` from the owner; the store deletes it when no finalizer remains. */
function removeFinalizer(gc: OwnerWorkCollector, ref: ObjectRef, finalizer: string): void {
  gc.mutate(ref, (o: KubeObject) => {
    o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  });
}

/** Orphan: drop the owner's references from every dependent, then the `orphan` finalizer. */
function orphanDependents(gc: OwnerWorkCollector, uid: string, ref: ObjectRef): void {
  for (const dependent of gc.dependentsOf(uid)) {
    gc.mutate(dependent, (o) => {
      const remaining = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      if (remaining.length > 0) o.metadata.ownerReferences = remaining;
      else delete o.metadata.ownerReferences;
    });
  }
  removeFinalizer(gc, ref, 'orphan');
}

/** Foreground: delete dependents; drop `foregroundDeletion` once no blocking dependent remains. */
function deleteDependentsFirst(gc: OwnerWorkCollector, uid: string, ref: ObjectRef): void {
  let blocking = 0;
  for (const dependent of gc.dependentsOf(uid)) {
    const obj = gc.core.find(dependent.key, dependent.namespace, dependent.name);
    if (!obj) continue;
    const owned = (obj.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
    if (owned?.blockOwnerDeletion) blocking += 1;
    if (obj.metadata.deletionTimestamp) continue;
    const hasDependents = gc.dependentsOf(obj.metadata.uid ?? '').length > 0;
    gc.delete(dependent, hasDependents ? 'Foreground' : 'Background');
  }
  if (blocking === 0) removeFinalizer(gc, ref, 'foregroundDeletion');
}

/** Does the owner-side work for `uid` if it is being deleted with a GC finalizer. */
export function ownerWork(gc: OwnerWorkCollector, uid: string): void {
  const ref = refOf(gc, uid);
  if (!ref) return;
  const owner = gc.core.find(ref.key, ref.namespace, ref.name);
  if (!owner?.metadata.deletionTimestamp) return;
  const finalizers = owner.metadata.finalizers ?? [];
  if (finalizers.includes('orphan')) orphanDependents(gc, uid, ref);
  else if (finalizers.includes('foregroundDeletion')) deleteDependentsFirst(gc, uid, ref);
}
