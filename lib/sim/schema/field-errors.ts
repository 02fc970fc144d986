/**
 * Builders of field errors worded as apimachinery/pkg/util/validation/field/errors.go words them
 * (`Required value`, `Invalid value: "x": why`, `Unsupported value: ...`, `Forbidden: ...`).
 */
import type { FieldError } from './api-error.ts';

/** How upstream prints a value inside `Invalid value: ...`: strings quoted, scalars bare, others as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}

/** `field: Required value[: detail]` (field.Required). */
export function required(field: string, detail?: string): FieldError {
  return {
    type: 'FieldValueRequired',
    field,
    message: detail ? `Required value: ${detail}` : 'Required value',
  };
}

/** `field: Invalid value: <value>: detail` (field.Invalid). */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${show(value)}: ${detail}` };
}

/** `field: Unsupported value: <value>: supported values: "a", "b"` (field.NotSupported). */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return {
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${show(value)}: supported values: ${list}`,
  };
}

/** `field: Forbidden: detail` (field.Forbidden). */
export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

/** `field: Duplicate value: <value>` (field.Duplicate). */
export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, message: `Duplicate value: ${show(value)}` };
}

/** `field: Too long: may not be more than N bytes` (field.TooLong). */
export function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} bytes` };
}

/** `field: Invalid value: <value>: field is immutable` (ValidateImmutableField). */
export function immutable(field: string, value: unknown): FieldError {
  return invalid(field, value, 'field is immutable');
}
