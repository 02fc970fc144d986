/**
 * ObjectMeta validation of staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 * (ValidateObjectMeta, ValidateObjectMetaUpdate) for the fields the simulator serves.
 */
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { FieldError } from './api-error.ts';
import { forbidden, immutable, invalid, required, tooLong } from './field-errors.ts';
import {
  dns1123LabelError,
  dns1123SubdomainError,
  labelValueError,
  pathSegmentNameError,
  qualifiedNameError,
} from './name-validation.ts';
import type { ResourceKey } from './resources.ts';
import { resourceByKey } from './resources.ts';

/**
 * The name rule of each resource: namespaces are DNS labels; custom resources and the RBAC kinds
 * path segments (ValidateRBACName), so `system:discovery` is a valid ClusterRole name.
 */
function nameErrorFor(key: ResourceKey): (name: string) => string | undefined {
  if (key === 'namespaces') return dns1123LabelError;
  if (key === 'everynode.dev/daemonsets' || key.startsWith('rbac.authorization.k8s.io/'))
    return pathSegmentNameError;
  return dns1123SubdomainError;
}

/** ValidateLabels: keys are qualified names, values label values. */
export function validateLabels(
  labels: Readonly<Record<string, string>> | undefined,
  field: string,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    const keyError = qualifiedNameError(key);
    if (keyError) errors.push(invalid(field, key, keyError));
    const valueError = typeof value === 'string' ? labelValueError(value) : 'must be a string';
    if (valueError) errors.push(invalid(field, value, valueError));
  }
  return errors;
}

/** ValidateAnnotations: keys are qualified names, total size at most 256 KiB. */
function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const keyError = qualifiedNameError(key.toLowerCase());
    if (keyError) errors.push(invalid('metadata.annotations', key, keyError));
    size += key.length + String(value).length;
  }
  if (size > 256 * 1024) errors.push(tooLong('metadata.annotations', 256 * 1024));
  return errors;
}

/** ValidateOwnerReferences: required coordinates, at most one controller. */
function validateOwnerReferences(refs: readonly V1OwnerReference[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const controllers: string[] = [];
  (refs ?? []).forEach((ref, i) => {
    const field = `metadata.ownerReferences[${i}]`;
    if (!ref.apiVersion)
      errors.push(invalid(`${field}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errors.push(invalid(`${field}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errors.push(invalid(`${field}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errors.push(invalid(`${field}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller) controllers.push(`${ref.kind}/${ref.name}`);
  });
  if (controllers.length > 1) {
    errors.push(
      invalid(
        'metadata.ownerReferences',
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errors;
}

/** ValidateFinalizers: qualified names, not both orphan and foregroundDeletion. */
function validateFinalizers(finalizers: readonly string[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  for (const f of finalizers ?? []) {
    const error = qualifiedNameError(f);
    if (error) errors.push(invalid('metadata.finalizers', f, error));
  }
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errors.push(
      invalid(
        'metadata.finalizers',
        finalizers,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errors;
}

/** The errors of a new object's metadata (ValidateObjectMeta with the resource's name rule). */
export function validateObjectMeta(key: ResourceKey, meta: Readonly<V1ObjectMeta>): FieldError[] {
  const errors: FieldError[] = [];
  const nameError = nameErrorFor(key);
  if (!meta.name) {
    errors.push(required('metadata.name', 'name or generateName is required'));
  } else {
    const error = nameError(meta.name);
    if (error) errors.push(invalid('metadata.name', meta.name, error));
  }
  const namespaced = resourceByKey(key).namespaced;
  if (namespaced && !meta.namespace) errors.push(required('metadata.namespace'));
  if (namespaced && meta.namespace) {
    const error = dns1123LabelError(meta.namespace);
    if (error) errors.push(invalid('metadata.namespace', meta.namespace, error));
  }
  if (!namespaced && meta.namespace) errors.push(forbidden('metadata.namespace', 'not allowed on this type'));
  return [
    ...errors,
    ...validateLabels(meta.labels, 'metadata.labels'),
    ...validateAnnotations(meta.annotations),
    ...validateOwnerReferences(meta.ownerReferences),
    ...validateFinalizers(meta.finalizers),
  ];
}

/** The errors of an update's metadata (ValidateObjectMetaUpdate): immutable identity, no new finalizers while deleting. */
export function validateObjectMetaUpdate(
  key: ResourceKey,
  meta: Readonly<V1ObjectMeta>,
  old: Readonly<V1ObjectMeta>,
): FieldError[] {
  const errors = validateObjectMeta(key, meta);
  if (meta.name !== old.name) errors.push(immutable('metadata.name', meta.name));
  if ((meta.namespace ?? '') !== (old.namespace ?? ''))
    errors.push(immutable('metadata.namespace', meta.namespace));
  if (old.deletionTimestamp) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length > 0) {
      errors.push(
        forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  return errors;
}
