/**
 * The validation vocabulary: one violation per invalid field, shaped like upstream
 * apimachinery field.Error so it can become a 422 Status cause, a condition or a Warning event.
 */

/** Upstream field.ErrorType names (the `reason` of a Status cause). */
export type FieldViolationType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong';

/** One invalid field: its JSON path (`spec.selector`), the kind of error, a message, the bad value. */
export interface FieldViolation {
  field: string;
  type: FieldViolationType;
  message: string;
  value?: unknown;
}

/** A FieldValueRequired violation (upstream field.Required). */
export function required(field: string, message = ''): FieldViolation {
  return { field, type: 'FieldValueRequired', message: message || 'Required value' };
}

/** A FieldValueInvalid violation of `value` (upstream field.Invalid). */
export function invalid(field: string, value: unknown, message: string): FieldViolation {
  return { field, type: 'FieldValueInvalid', message, value };
}

/** A FieldValueNotSupported violation listing the supported values (upstream field.NotSupported). */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldViolation {
  const list = supported.map((s) => `"${s}"`).join(', ');
  return { field, type: 'FieldValueNotSupported', message: `supported values: ${list}`, value };
}

/** A FieldValueForbidden violation (upstream field.Forbidden). */
export function forbidden(field: string, message: string): FieldViolation {
  return { field, type: 'FieldValueForbidden', message };
}

/** A FieldValueDuplicate violation (upstream field.Duplicate). */
export function duplicate(field: string, value: unknown): FieldViolation {
  return { field, type: 'FieldValueDuplicate', message: 'Duplicate value', value };
}

/** A FieldValueTooLong violation (upstream field.TooLong). */
export function tooLong(field: string, value: unknown, max: number): FieldViolation {
  return { field, type: 'FieldValueTooLong', message: `must have at most ${max} bytes`, value };
}

/**
 * The upstream ValidateNonnegativeField check: a violation when `value` is negative, else none.
 */
export function nonNegative(field: string, value: number | undefined): FieldViolation[] {
  return value !== undefined && value < 0
    ? [invalid(field, value, 'must be greater than or equal to 0')]
    : [];
}
