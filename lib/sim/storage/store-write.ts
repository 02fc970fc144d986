/**
 * Create and update of the ClusterStore, following the generic registry
 * (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go Create/Update and
 * rest.BeforeCreate/BeforeUpdate): server-owned metadata, strategies, validation, optimistic
 * concurrency, no-op writes that keep the resourceVersion (in-process writes: store-mutate.ts).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { SimApiError } from '../schema/api-error.ts';
import { validateCreate, validateResize, validateUpdate } from '../schema/object-validation.ts';
import { type ResourceKey, resourceByKey } from '../schema/resources.ts';
import { asRecord, formatTime, jsonEqual, toWireJson } from '../schema/store-json.ts';
import type { CreateOptions, KubeObject, UnknownFieldsHook, UpdateOptions } from '../schema/store-types.ts';
import { pruneUnknownFields } from '../schema/store-unknown-fields.ts';
import { resizeUpdateOf } from './pod-resize-strategy.ts';
import type { StoreCore } from './store-core.ts';
import { prepareForCreate, prepareForUpdate, statusUpdateOf, strategyOf } from './store-strategy.ts';

/** Characters of generated name suffixes (apiserver/pkg/storage/names, utilrand.String). */
const suffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` + 5 random characters, the prefix cut to 58 (names.SimpleNameGenerator). */
function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i += 1) suffix += suffixAlphabet.charAt(randomInt(suffixAlphabet.length));
  return `${prefix.slice(0, 58)}${suffix}`;
}

/**
 * Copies `input` as wire JSON, checks its apiVersion/kind against the resource (defaulting them)
 * and drops the fields its schema does not know, as decoding into the Go type (or CRD pruning)
 * does; `onUnknownFields` sees them first.
 */
export function normalizeInput(
  key: ResourceKey,
  input: Readonly<KubeObject>,
  onUnknownFields?: UnknownFieldsHook,
): KubeObject {
  const obj = toWireJson(input) as KubeObject;
  pruneUnknownFields(key, obj, onUnknownFields);
  const resource = resourceByKey(key);
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  if (obj.apiVersion && obj.apiVersion !== apiVersion) {
    throw SimApiError.badRequest(
      `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (obj.kind && obj.kind !== resource.kind) {
    throw SimApiError.badRequest(
      `the kind in the data (${obj.kind}) does not match the expected kind (${resource.kind})`,
    );
  }
  obj.apiVersion = apiVersion;
  obj.kind = resource.kind;
  obj.metadata = obj.metadata ?? {};
  if (!resource.namespaced) delete obj.metadata.namespace;
  return obj;
}

/** NamespaceLifecycle admission: the namespace must exist and not be terminating. */
function admitNamespace(core: StoreCore, key: ResourceKey, obj: Readonly<KubeObject>): void {
  const resource = resourceByKey(key);
  const namespace = obj.metadata.namespace;
  if (!resource.namespaced || !namespace) return;
  const ns = core.find('namespaces', undefined, namespace);
  if (!ns) throw SimApiError.notFound({ plural: 'namespaces', group: '' }, namespace);
  if (ns.metadata.deletionTimestamp) {
    throw SimApiError.forbidden(
      resource,
      obj.metadata.name ?? '',
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${namespace} is being terminated`,
        field: 'metadata.namespace',
      },
    );
  }
}

/** Creates an object; returns the stored (frozen) object, or the would-be object on dry run. */
export function createObject(
  core: StoreCore,
  key: ResourceKey,
  input: Readonly<KubeObject>,
  options: Readonly<CreateOptions> = {},
): KubeObject {
  const obj = normalizeInput(key, input, options.onUnknownFields);
  const meta = obj.metadata;
  if (meta.resourceVersion)
    throw SimApiError.internal('resourceVersion should not be set on objects to be created');
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTime(core.now()) as unknown as Date;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.managedFields;
  prepareForCreate(key, obj);
  admitNamespace(core, key, obj);
  validateCreate(key, obj);
  if (core.find(key, meta.namespace, meta.name ?? '')) {
    throw SimApiError.alreadyExists(resourceByKey(key), meta.name ?? '');
  }
  if (options.dryRun) return obj;
  return core.put(key, obj, undefined);
}

/** Keeps the server-owned metadata of the stored object on an update. */
export function keepServerMetadata(obj: KubeObject, old: Readonly<KubeObject>): void {
  const meta = obj.metadata;
  meta.uid = old.metadata.uid;
  meta.creationTimestamp = old.metadata.creationTimestamp;
  meta.generation = old.metadata.generation;
  if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (old.metadata.deletionGracePeriodSeconds !== undefined) {
    meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  } else delete meta.deletionGracePeriodSeconds;
  if (old.metadata.generation === undefined) delete meta.generation;
}

/**
 * Writes `next` over `old` unless nothing changed (then returns `old`, resourceVersion kept). An
 * object being deleted whose last finalizer is gone and whose grace period is 0 is deleted instead
 * (Store.shouldDeleteDuringUpdate).
 */
export function commitUpdate(
  core: StoreCore,
  key: ResourceKey,
  next: KubeObject,
  old: KubeObject,
  dryRun = false,
): KubeObject {
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  if (jsonEqual(next, old)) return old;
  if (dryRun) return next;
  const meta = next.metadata;
  const specFinalizers = key === 'namespaces' ? asRecord(next.spec)?.finalizers : undefined;
  const emptied =
    (meta.finalizers ?? []).length === 0 && !(Array.isArray(specFinalizers) && specFinalizers.length > 0);
  if (meta.deletionTimestamp && emptied && (meta.deletionGracePeriodSeconds ?? 0) === 0) {
    return core.remove(key, old, next);
  }
  return core.put(key, next, old);
}

/** Finds the stored object an update targets, or throws 404. */
function existingFor(core: StoreCore, key: ResourceKey, obj: Readonly<KubeObject>): KubeObject | undefined {
  return core.find(key, obj.metadata.namespace, obj.metadata.name ?? '');
}

/** Checks the optimistic-concurrency and uid preconditions of an update (409 Conflict). */
function checkPreconditions(key: ResourceKey, obj: Readonly<KubeObject>, old: Readonly<KubeObject>): void {
  const resource = resourceByKey(key);
  const name = obj.metadata.name ?? '';
  if (obj.metadata.uid && obj.metadata.uid !== old.metadata.uid) {
    throw SimApiError.conflict(
      resource,
      name,
      `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
    );
  }
  const rv = obj.metadata.resourceVersion;
  if (rv && rv !== old.metadata.resourceVersion) {
    throw SimApiError.conflict(
      resource,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
}

/**
 * Replaces an object (PUT), or only its status with `subresource: 'status'`, or only a pod's
 * container resources with `subresource: 'resize'`; returns the stored result.
 */
export function updateObject(
  core: StoreCore,
  key: ResourceKey,
  input: Readonly<KubeObject>,
  options: Readonly<UpdateOptions> = {},
): KubeObject {
  const obj = normalizeInput(key, input, options.onUnknownFields);
  const old = existingFor(core, key, obj);
  if (!old) {
    if (strategyOf(key).allowCreateOnUpdate && !options.subresource) {
      const { resourceVersion: _rv, ...meta } = obj.metadata;
      return createObject(core, key, { ...obj, metadata: meta }, { dryRun: options.dryRun ?? false });
    }
    throw SimApiError.notFound(resourceByKey(key), obj.metadata.name ?? '');
  }
  checkPreconditions(key, obj, old);
  if (options.subresource === 'resize') {
    const resized = resizeUpdateOf(obj, old);
    validateResize(key, resized, old);
    return commitUpdate(core, key, resized, old, options.dryRun);
  }
  const next = options.subresource === 'status' ? statusUpdateOf(obj, old) : obj;
  if (options.subresource !== 'status') {
    keepServerMetadata(next, old);
    prepareForUpdate(key, next, old);
  }
  validateUpdate(key, next, old);
  return commitUpdate(core, key, next, old, options.dryRun);
}
