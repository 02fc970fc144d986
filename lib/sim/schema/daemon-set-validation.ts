/**
 * DaemonSet validation (apps/v1 and everynode.dev/v1) through lib/core's validateDaemonSet, its
 * violations worded as apimachinery field errors so 422 answers read like the real server's.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { type FieldViolation, validateDaemonSet } from '../../core/validation.ts';
import type { FieldError } from './api-error.ts';
import type { KubeObject } from './store-types.ts';

/** How upstream prints a value inside an error message. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}

/** The message field.Error.ErrorBody() gives a violation of each type. */
function messageOf(v: Readonly<FieldViolation>): string {
  switch (v.type) {
    case 'FieldValueRequired':
      return v.message === 'Required value' || v.message === ''
        ? 'Required value'
        : `Required value: ${v.message}`;
    case 'FieldValueInvalid':
      return `Invalid value: ${show(v.value)}: ${v.message}`;
    case 'FieldValueNotSupported':
      return `Unsupported value: ${show(v.value)}: ${v.message}`;
    case 'FieldValueForbidden':
      return `Forbidden: ${v.message}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${show(v.value)}`;
    case 'FieldValueTooLong':
      return `Too long: ${v.message}`;
  }
}

/**
 * The errors of a DaemonSet (and of its update when `old` is given). Metadata is left to the
 * store's own ObjectMeta validation, which knows each resource's name rule.
 */
export function daemonSetErrors(
  obj: Readonly<KubeObject>,
  old: Readonly<KubeObject> | undefined,
): FieldError[] {
  const violations = validateDaemonSet(
    obj as unknown as V1DaemonSet,
    old as unknown as V1DaemonSet | undefined,
  );
  return violations
    .filter((v) => !v.field.startsWith('metadata.'))
    .map((v) => ({ type: v.type, field: v.field, message: messageOf(v) }));
}
