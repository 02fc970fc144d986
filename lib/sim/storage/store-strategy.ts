/**
 * Per-resource create/update rules of the registries (pkg/registry/<resource>/strategy.go and the
 * apiextensions customresource strategy): what the server resets, defaults and bumps.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { defaultDaemonSet } from '../../core/defaults.ts';
import { defaultPodForUpdate, preparePodForCreate } from '../schema/pod-defaults.ts';
import type { ResourceKey } from '../schema/resources.ts';
import { asRecord, jsonEqual, toWireJson } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';
import { defaultCrd, defaultRbacBinding, prepareCrdForCreate } from './access-strategy.ts';

/** Annotation holding apps/v1 DaemonSets' internal spec.templateGeneration (apps/v1 conversion). */
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

/** Facts of a resource's registry that the store needs. */
export interface ResourceStrategy {
  /** metadata.generation is maintained (1 on create, +1 on spec changes). */
  readonly hasGeneration: boolean;
  /** Status is written only through /status; the main resource keeps the stored status. */
  readonly statusSubresource: boolean;
  /** DELETE answers with the object (Store.ReturnDeletedObject) instead of a Status. */
  readonly returnsDeletedObject: boolean;
  /** PUT of a missing object creates it (RESTUpdateStrategy.AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
}

/** The RBAC registries (pkg/registry/rbac/role/strategy.go and its siblings): plain objects that PUT may create. */
const rbacStrategy: ResourceStrategy = {
  hasGeneration: false,
  statusSubresource: false,
  returnsDeletedObject: false,
  allowCreateOnUpdate: true,
};

const strategies: Readonly<Record<ResourceKey, ResourceStrategy>> = {
  namespaces: {
    hasGeneration: false,
    statusSubresource: true,
    returnsDeletedObject: true,
    allowCreateOnUpdate: false,
  },
  nodes: {
    hasGeneration: false,
    statusSubresource: true,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
  },
  pods: {
    hasGeneration: false,
    statusSubresource: true,
    returnsDeletedObject: true,
    allowCreateOnUpdate: false,
  },
  events: {
    hasGeneration: false,
    statusSubresource: false,
    returnsDeletedObject: false,
    allowCreateOnUpdate: true,
  },
  'apps/daemonsets': {
    hasGeneration: true,
    statusSubresource: true,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
  },
  'apps/controllerrevisions': {
    hasGeneration: false,
    statusSubresource: false,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
  },
  // Never stored: a review is answered, not kept (selfsubjectaccessreview/rest.go).
  'authorization.k8s.io/selfsubjectaccessreviews': {
    hasGeneration: false,
    statusSubresource: false,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
  },
  'rbac.authorization.k8s.io/clusterrolebindings': rbacStrategy,
  'rbac.authorization.k8s.io/clusterroles': rbacStrategy,
  'rbac.authorization.k8s.io/rolebindings': rbacStrategy,
  'rbac.authorization.k8s.io/roles': rbacStrategy,
  'apiextensions.k8s.io/customresourcedefinitions': {
    hasGeneration: true,
    statusSubresource: true,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
  },
  'everynode.dev/daemonsets': {
    hasGeneration: true,
    statusSubresource: true,
    returnsDeletedObject: true,
    allowCreateOnUpdate: false,
  },
};

/** The registry facts of `key`. */
export function strategyOf(key: ResourceKey): ResourceStrategy {
  return strategies[key];
}

/** Applies apps/v1 DaemonSet defaults in place (lib/core defaultDaemonSet = SetDefaults_DaemonSet). */
function defaultDaemonSetTemplate(obj: KubeObject): void {
  if (!asRecord(obj.spec)) return;
  const defaulted = toWireJson(defaultDaemonSet(obj as unknown as V1DaemonSet));
  obj.spec = defaulted.spec;
}

/** Sets the template-generation annotation of an apps/v1 DaemonSet to `value`. */
function setTemplateGeneration(obj: KubeObject, value: number): void {
  obj.metadata.annotations = { ...obj.metadata.annotations, [templateGenerationAnnotation]: String(value) };
}

/**
 * Resets and defaults a new object in place as PrepareForCreate and the versioned defaults do.
 * Identity fields (uid, timestamps, resourceVersion) are the store's business, not this.
 */
export function prepareForCreate(key: ResourceKey, obj: KubeObject): void {
  const strategy = strategyOf(key);
  if (strategy.hasGeneration) obj.metadata.generation = 1;
  if (key === 'pods') preparePodForCreate(obj);
  if (key === 'namespaces') {
    obj.spec = { finalizers: ['kubernetes'] };
    obj.status = { phase: 'Active' };
  }
  if (key === 'apps/daemonsets' || key === 'everynode.dev/daemonsets') {
    defaultDaemonSetTemplate(obj);
    delete obj.status;
  }
  if (key === 'apps/daemonsets') {
    obj.status = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    };
    setTemplateGeneration(obj, 1);
  }
  if (key === 'namespaces') labelNamespaceName(key, obj);
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') prepareCrdForCreate(obj);
  if (isBindingKey(key)) defaultRbacBinding(obj);
}

/** Whether `key` is one of the RBAC binding kinds, which carry a roleRef and subjects. */
function isBindingKey(key: ResourceKey): boolean {
  return (
    key === 'rbac.authorization.k8s.io/rolebindings' ||
    key === 'rbac.authorization.k8s.io/clusterrolebindings'
  );
}

/** Namespaces carry `kubernetes.io/metadata.name` (namespace strategy, NamespaceDefaultLabelName). */
function labelNamespaceName(key: ResourceKey, obj: KubeObject): void {
  if (key !== 'namespaces' || !obj.metadata.name) return;
  obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
}

/** Top-level fields other than metadata and status: what counts as "spec" for generation. */
function specPart(obj: Readonly<KubeObject>): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * Adjusts an updated object in place as PrepareForUpdate does: keeps the stored status on the main
 * resource, bumps generation when the spec changed, keeps the DaemonSet template generation.
 */
export function prepareForUpdate(key: ResourceKey, obj: KubeObject, old: Readonly<KubeObject>): void {
  const strategy = strategyOf(key);
  if (strategy.statusSubresource) {
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
  }
  if (key === 'apps/daemonsets' || key === 'everynode.dev/daemonsets') defaultDaemonSetTemplate(obj);
  if (key === 'pods') defaultPodForUpdate(obj);
  if (key === 'namespaces') labelNamespaceName(key, obj);
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') defaultCrd(obj);
  if (isBindingKey(key)) defaultRbacBinding(obj);
  if (strategy.hasGeneration) {
    const changed = !jsonEqual(specPart(obj), specPart(old));
    obj.metadata.generation = (old.metadata.generation ?? 1) + (changed ? 1 : 0);
  }
  if (key === 'apps/daemonsets') {
    const oldGeneration = Number(old.metadata.annotations?.[templateGenerationAnnotation] ?? '1');
    const templateChanged = !jsonEqual(asRecord(obj.spec)?.template, asRecord(old.spec)?.template);
    setTemplateGeneration(obj, oldGeneration + (templateChanged ? 1 : 0));
  }
}

/**
 * The object a /status write produces: the stored object with only `.status` taken from the
 * request (rest.ResetObjectMetaForStatus plus each status strategy's PrepareForUpdate).
 */
export function statusUpdateOf(requested: Readonly<KubeObject>, old: Readonly<KubeObject>): KubeObject {
  const next: KubeObject = { ...old, metadata: { ...old.metadata } };
  if (requested.status === undefined) delete next.status;
  else next.status = requested.status;
  return next;
}
