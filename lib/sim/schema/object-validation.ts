/**
 * What the simulated API server refuses with 422 Invalid, per resource: metadata everywhere, plus
 * the pod, node, namespace, DaemonSet and ControllerRevision rules of pkg/apis/<group>/validation,
 * and those of the RBAC kinds and CRDs (access-validation.ts).
 */
import { accessErrors, accessUpdateErrors } from './access-validation.ts';
import { type FieldError, SimApiError } from './api-error.ts';
import { daemonSetErrors } from './daemon-set-validation.ts';
import { immutable, invalid, notSupported, required } from './field-errors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata-validation.ts';
import { qualifiedNameError } from './name-validation.ts';
import { validatePodResize } from './pod-resize-validation.ts';
import { validatePodUpdate } from './pod-update-validation.ts';
import { validatePodSpec } from './pod-validation.ts';
import { type ResourceKey, resourceByKey } from './resources.ts';
import { asRecord, jsonEqual } from './store-json.ts';
import type { KubeObject } from './store-types.ts';

/** ValidateNodeSpec's taint rules: qualified key, a known effect, unique key+effect. */
function nodeErrors(obj: Readonly<KubeObject>): FieldError[] {
  const errors: FieldError[] = [];
  const taints = asRecord(obj.spec)?.taints;
  const seen = new Set<string>();
  (Array.isArray(taints) ? taints : []).forEach((t, i) => {
    const taint = asRecord(t) ?? {};
    const key = typeof taint.key === 'string' ? taint.key : '';
    const keyError = key === '' ? 'name part must be non-empty' : qualifiedNameError(key);
    if (keyError) errors.push(invalid(`spec.taints[${i}].key`, key, keyError));
    if (!taint.effect) errors.push(required(`spec.taints[${i}].effect`));
    else if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(taint.effect))) {
      errors.push(
        notSupported(`spec.taints[${i}].effect`, taint.effect, [
          'NoSchedule',
          'PreferNoSchedule',
          'NoExecute',
        ]),
      );
    }
    const pair = `${key}:${String(taint.effect)}`;
    if (seen.has(pair))
      errors.push(invalid(`spec.taints[${i}]`, taint, 'taints must be unique by key and effect pair'));
    seen.add(pair);
  });
  return errors;
}

/** ValidateControllerRevision: a non-negative revision. */
function controllerRevisionErrors(obj: Readonly<KubeObject>): FieldError[] {
  const revision = obj.revision;
  if (typeof revision !== 'number' || revision < 0) {
    return [invalid('revision', revision ?? 0, 'must be greater than or equal to 0')];
  }
  return [];
}

/** The resource-specific errors of a new object. */
function specErrors(key: ResourceKey, obj: Readonly<KubeObject>): FieldError[] {
  switch (key) {
    case 'pods':
      return validatePodSpec(obj.spec, 'spec');
    case 'nodes':
      return nodeErrors(obj);
    case 'apps/daemonsets':
    case 'everynode.dev/daemonsets':
      return daemonSetErrors(key, obj, undefined);
    case 'apps/controllerrevisions':
      return controllerRevisionErrors(obj);
    default:
      return accessErrors(key, obj);
  }
}

/** The resource-specific errors of an update. */
function specUpdateErrors(
  key: ResourceKey,
  obj: Readonly<KubeObject>,
  old: Readonly<KubeObject>,
): FieldError[] {
  switch (key) {
    case 'pods':
      return validatePodUpdate(obj.spec, old.spec);
    case 'apps/daemonsets':
    case 'everynode.dev/daemonsets':
      return daemonSetErrors(key, obj, old);
    case 'apps/controllerrevisions':
      return [
        ...controllerRevisionErrors(obj),
        ...(jsonEqual(obj.data, old.data) ? [] : [immutable('data', obj.data)]),
      ];
    case 'nodes': {
      const errors = nodeErrors(obj);
      const oldProvider = asRecord(old.spec)?.providerID;
      const provider = asRecord(obj.spec)?.providerID;
      if (oldProvider && provider !== oldProvider) {
        errors.push(
          invalid(
            'spec.providerID',
            provider ?? '',
            'node updates may not change providerID except from "" to valid',
          ),
        );
      }
      return errors;
    }
    default:
      return accessUpdateErrors(key, obj, old);
  }
}

/** Throws the 422 Invalid the real server answers for `errors`, if any. */
function throwIfInvalid(key: ResourceKey, obj: Readonly<KubeObject>, errors: readonly FieldError[]): void {
  if (errors.length === 0) return;
  const resource = resourceByKey(key);
  const name = obj.metadata.name || obj.metadata.generateName || '';
  throw SimApiError.invalid(resource.kind, resource.group, name, errors);
}

/** Throws 422 Invalid when a new object breaks the rules of its resource. */
export function validateCreate(key: ResourceKey, obj: Readonly<KubeObject>): void {
  throwIfInvalid(key, obj, [...validateObjectMeta(key, obj.metadata), ...specErrors(key, obj)]);
}

/** Throws 422 Invalid when an update breaks the rules of its resource (immutable fields included). */
export function validateUpdate(key: ResourceKey, obj: Readonly<KubeObject>, old: Readonly<KubeObject>): void {
  throwIfInvalid(key, obj, [
    ...validateObjectMetaUpdate(key, obj.metadata, old.metadata),
    ...specUpdateErrors(key, obj, old),
  ]);
}

/** Throws 422 Invalid when a pods/resize write breaks ValidatePodResize. */
export function validateResize(key: ResourceKey, obj: Readonly<KubeObject>, old: Readonly<KubeObject>): void {
  throwIfInvalid(key, obj, [
    ...validateObjectMetaUpdate(key, obj.metadata, old.metadata),
    ...validatePodResize(obj, old),
  ]);
}

/** The `metadata.name` required error, exported for the store's generateName path. */
export const nameRequired = (): FieldError => required('metadata.name', 'name or generateName is required');
