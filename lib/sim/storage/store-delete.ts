/**
 * Deletion as the generic registry does it (staging/src/k8s.io/apiserver/pkg/registry/generic/
 * registry/store.go Delete + updateForGracefulDeletionAndFinalizers, registry/rest/delete.go
 * BeforeDelete, pkg/registry/core/pod/strategy.go CheckGracefulDelete): preconditions, graceful
 * deletion of bound pods, finalizers, and the orphan / foregroundDeletion finalizers that
 * propagationPolicy asks the garbage collector for.
 */
import { SimApiError } from '../schema/api-error.ts';
import { type ResourceKey, resourceByKey } from '../schema/resources.ts';
import { asRecord, cloneJson, formatTime } from '../schema/store-json.ts';
import type { DeleteOptions, KubeObject } from '../schema/store-types.ts';
import type { StoreCore } from './store-core.ts';

/** What a delete did: the object as it is now (or its final state), and whether it is gone. */
export interface DeleteResult {
  readonly object: KubeObject;
  readonly deleted: boolean;
}

/** Namespaces the NamespaceLifecycle admission plugin refuses to delete. */
const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/** BeforeDelete's precondition check; note upstream names the kind, not the resource, here. */
function checkPreconditions(
  key: ResourceKey,
  old: Readonly<KubeObject>,
  options: Readonly<DeleteOptions>,
): void {
  const resource = resourceByKey(key);
  const named = { plural: resource.kind, group: resource.group };
  const name = old.metadata.name ?? '';
  const { uid, resourceVersion } = options.preconditions ?? {};
  if (uid && uid !== old.metadata.uid) {
    throw SimApiError.conflict(
      named,
      name,
      `the UID in the precondition (${uid}) does not match the UID in record (${old.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (resourceVersion && resourceVersion !== old.metadata.resourceVersion) {
    throw SimApiError.conflict(
      named,
      name,
      `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}

/** CheckGracefulDelete of pods: the grace period to use, 0 for unbound or finished pods. */
function podGracePeriod(pod: Readonly<KubeObject>, requested: number | undefined): number {
  const spec = asRecord(pod.spec) ?? {};
  const phase = asRecord(pod.status)?.phase;
  if (!spec.nodeName || phase === 'Failed' || phase === 'Succeeded') return 0;
  if (requested !== undefined) return requested;
  return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
}

/** deletionFinalizersForGarbageCollection: the finalizers after applying the propagation policy. */
function finalizersFor(current: readonly string[], policy: DeleteOptions['propagationPolicy']): string[] {
  const others = current.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  if (policy === 'Orphan') return [...others, 'orphan'];
  if (policy === 'Foreground') return [...others, 'foregroundDeletion'];
  if (policy === 'Background') return others;
  return [...current];
}

/** The graceful-deletion stamp BeforeDelete puts on an object not yet being deleted, or undefined. */
function gracefulStamp(
  core: StoreCore,
  key: ResourceKey,
  obj: KubeObject,
  options: Readonly<DeleteOptions>,
): number | undefined {
  if (key !== 'pods') return undefined;
  const period = podGracePeriod(obj, options.gracePeriodSeconds);
  obj.metadata.deletionTimestamp = formatTime(
    new Date(core.now().getTime() + period * 1000),
  ) as unknown as Date;
  obj.metadata.deletionGracePeriodSeconds = period;
  return period;
}

/** BeforeDelete for an object already being deleted: shorten the grace period, or report pending. */
function regrace(obj: KubeObject, options: Readonly<DeleteOptions>): 'now' | 'pending' | number {
  const current = obj.metadata.deletionGracePeriodSeconds;
  if (current === undefined || current === 0) return 'now';
  const requested = options.gracePeriodSeconds;
  if (requested === undefined || requested >= current) return 'pending';
  const start = new Date(String(obj.metadata.deletionTimestamp)).getTime() - current * 1000;
  obj.metadata.deletionTimestamp = formatTime(new Date(start + requested * 1000)) as unknown as Date;
  obj.metadata.deletionGracePeriodSeconds = requested;
  return requested;
}

/** Marks a non-graceful object with pending finalizers as deleting (store.go markAsDeleting). */
function markAsDeleting(core: StoreCore, obj: KubeObject): void {
  const meta = obj.metadata;
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  if (!meta.deletionTimestamp) meta.deletionTimestamp = formatTime(core.now()) as unknown as Date;
  meta.deletionGracePeriodSeconds = 0;
}

/** How a delete of a stored object goes: which update to write first and whether to remove it. */
function plan(
  core: StoreCore,
  key: ResourceKey,
  old: KubeObject,
  options: Readonly<DeleteOptions>,
): { next: KubeObject; remove: boolean } | 'pending' {
  const next = cloneJson(old);
  let graceful: number | undefined;
  if (old.metadata.deletionTimestamp && key === 'pods') {
    const outcome = regrace(next, options);
    if (outcome === 'pending') return 'pending';
    graceful = outcome === 'now' ? undefined : outcome;
  } else if (!old.metadata.deletionTimestamp) {
    graceful = gracefulStamp(core, key, next, options);
    if (graceful !== undefined && (next.metadata.generation ?? 0) > 0)
      next.metadata.generation = (next.metadata.generation ?? 0) + 1;
  }
  const finalizers = finalizersFor(old.metadata.finalizers ?? [], options.propagationPolicy);
  if (finalizers.length > 0 || old.metadata.finalizers) next.metadata.finalizers = finalizers;
  if (finalizers.length > 0 && graceful === undefined) markAsDeleting(core, next);
  return { next, remove: finalizers.length === 0 && (graceful === undefined || graceful === 0) };
}

/** Deletes (or starts deleting) an object; see DeleteResult. Throws 404, 409 or 403 like the real server. */
export function deleteObject(
  core: StoreCore,
  key: ResourceKey,
  namespace: string | undefined,
  name: string,
  options: Readonly<DeleteOptions> = {},
): DeleteResult {
  const old = core.find(key, namespace, name);
  if (!old) throw SimApiError.notFound(resourceByKey(key), name);
  checkPreconditions(key, old, options);
  if (key === 'namespaces' && immortalNamespaces.has(name)) {
    throw SimApiError.forbidden(resourceByKey(key), name, 'this namespace may not be deleted');
  }
  const opts = {
    ...options,
    gracePeriodSeconds:
      options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0
        ? 1
        : options.gracePeriodSeconds,
  };
  if (key === 'namespaces') return deleteNamespace(core, old, opts);
  const steps = plan(core, key, old, opts);
  if (steps === 'pending') return { object: old, deleted: false };
  if (opts.dryRun) return { object: steps.next, deleted: steps.remove };
  const changed = JSON.stringify(steps.next) !== JSON.stringify(old);
  const written = changed ? core.put(key, steps.next, old) : old;
  if (!steps.remove) return { object: written, deleted: false };
  return { object: core.remove(key, written), deleted: true };
}

/** Namespace deletion (pkg/registry/core/namespace/storage Delete): Terminating until its finalizers are gone. */
function deleteNamespace(core: StoreCore, old: KubeObject, options: Readonly<DeleteOptions>): DeleteResult {
  const specFinalizers = asRecord(old.spec)?.finalizers;
  const pending = Array.isArray(specFinalizers) && specFinalizers.length > 0;
  const next = cloneJson(old);
  next.metadata.finalizers = finalizersFor(old.metadata.finalizers ?? [], options.propagationPolicy);
  if (next.metadata.finalizers.length === 0 && !old.metadata.finalizers) delete next.metadata.finalizers;
  if (!pending && (next.metadata.finalizers ?? []).length === 0) {
    return options.dryRun
      ? { object: next, deleted: true }
      : { object: core.remove('namespaces', old), deleted: true };
  }
  if (!next.metadata.deletionTimestamp) {
    next.metadata.deletionTimestamp = formatTime(core.now()) as unknown as Date;
    next.metadata.deletionGracePeriodSeconds = 0;
  }
  next.status = { ...asRecord(old.status), phase: 'Terminating' };
  if (options.dryRun) return { object: next, deleted: false };
  return {
    object: JSON.stringify(next) === JSON.stringify(old) ? old : core.put('namespaces', next, old),
    deleted: false,
  };
}
