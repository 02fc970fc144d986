/**
 * The fields each resource can be selected by with `?fieldSelector=`, and their values, as the
 * registries' GetAttrs/ToSelectableFields define them (pkg/registry/core/pod/strategy.go
 * PodToSelectableFields, node/strategy.go, namespace/strategy.go, event/strategy.go; every other
 * resource only has metadata.name and metadata.namespace, generic.ObjectMetaFieldsSet).
 */
import { SimApiError } from '../schema/api-error.ts';
import type { ResourceKey } from '../schema/resources.ts';
import { asRecord } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';

type FieldGetter = (obj: Readonly<KubeObject>) => string;

/** The value at a dotted path as a field selector sees it: strings as is, others as text, absent as ''. */
function at(path: string): FieldGetter {
  const parts = path.split('.');
  return (obj) => {
    let current: unknown = obj;
    for (const part of parts) current = asRecord(current)?.[part];
    if (current === undefined || current === null) return '';
    return typeof current === 'string' ? current : String(current);
  };
}

/** Booleans select as "true"/"false" even when absent (pod spec.hostNetwork, node spec.unschedulable). */
function boolAt(path: string): FieldGetter {
  const get = at(path);
  return (obj) => (get(obj) === 'true' ? 'true' : 'false');
}

const metaFields: Record<string, FieldGetter> = {
  'metadata.name': at('metadata.name'),
  'metadata.namespace': at('metadata.namespace'),
};

const podFields: Record<string, FieldGetter> = {
  ...metaFields,
  'spec.nodeName': at('spec.nodeName'),
  'spec.restartPolicy': at('spec.restartPolicy'),
  'spec.schedulerName': at('spec.schedulerName'),
  'spec.serviceAccountName': at('spec.serviceAccountName'),
  'spec.hostNetwork': boolAt('spec.hostNetwork'),
  'status.phase': at('status.phase'),
  'status.podIP': at('status.podIP'),
  'status.nominatedNodeName': at('status.nominatedNodeName'),
};

const eventFields: Record<string, FieldGetter> = {
  ...metaFields,
  'involvedObject.kind': at('involvedObject.kind'),
  'involvedObject.namespace': at('involvedObject.namespace'),
  'involvedObject.name': at('involvedObject.name'),
  'involvedObject.uid': at('involvedObject.uid'),
  'involvedObject.apiVersion': at('involvedObject.apiVersion'),
  'involvedObject.resourceVersion': at('involvedObject.resourceVersion'),
  'involvedObject.fieldPath': at('involvedObject.fieldPath'),
  reason: at('reason'),
  reportingComponent: at('reportingComponent'),
  source: at('source.component'),
  type: at('type'),
};

const fieldsByKey: Readonly<Record<ResourceKey, Record<string, FieldGetter>>> = {
  namespaces: { ...metaFields, 'status.phase': at('status.phase') },
  nodes: { ...metaFields, 'spec.unschedulable': boolAt('spec.unschedulable') },
  pods: podFields,
  events: eventFields,
  'apps/daemonsets': metaFields,
  'apps/controllerrevisions': metaFields,
  'authorization.k8s.io/selfsubjectaccessreviews': metaFields,
  'rbac.authorization.k8s.io/clusterrolebindings': metaFields,
  'rbac.authorization.k8s.io/clusterroles': metaFields,
  'rbac.authorization.k8s.io/rolebindings': metaFields,
  'rbac.authorization.k8s.io/roles': metaFields,
  'apiextensions.k8s.io/customresourcedefinitions': metaFields,
  'everynode.dev/daemonsets': metaFields,
};

/**
 * The value of selectable field `field` of `obj`. Throws a 400 SimApiError
 * (`field label not supported: x`) for a field the resource cannot be selected by.
 */
export function selectableField(key: ResourceKey, obj: Readonly<KubeObject>, field: string): string {
  const getter = fieldsByKey[key][field];
  if (!getter) throw SimApiError.badRequest(`field label not supported: ${field}`);
  return getter(obj);
}

/** Throws the 400 the real server answers when `field` is not selectable for `key`. */
export function checkSelectableField(key: ResourceKey, field: string): void {
  if (!fieldsByKey[key][field]) throw SimApiError.badRequest(`field label not supported: ${field}`);
}

/** Fields the store keeps an index for, so lists by them do not scan (pods by node). */
export const indexedFields: Readonly<Record<ResourceKey, readonly string[]>> = {
  namespaces: [],
  nodes: [],
  pods: ['spec.nodeName'],
  events: ['involvedObject.uid'],
  'apps/daemonsets': [],
  'apps/controllerrevisions': [],
  'authorization.k8s.io/selfsubjectaccessreviews': [],
  'rbac.authorization.k8s.io/clusterrolebindings': [],
  'rbac.authorization.k8s.io/clusterroles': [],
  'rbac.authorization.k8s.io/rolebindings': [],
  'rbac.authorization.k8s.io/roles': [],
  'apiextensions.k8s.io/customresourcedefinitions': [],
  'everynode.dev/daemonsets': [],
};
