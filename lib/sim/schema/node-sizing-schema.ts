/**
 * What the everynode.dev/v1 CRD's structural schema checks of `spec.nodeSizing`, as the real API
 * server does (apiextensions-apiserver's OpenAPI schema validation through kube-openapi): the JSON
 * type of each value, worded `<path> in body must be of type <type>: "<actual>"` under
 * `Invalid value: "<actual>"`, and the required `container`. The rules' meaning (a container of the
 * template, a well-formed quantity, min not above max) is no part of the schema: everynode reports
 * those as an invalid spec.
 */
import type { FieldError } from './api-error.ts';

/** The entry fields whose values are quantities, typed int-or-string (integer or string). */
const QUANTITY_MAPS = ['perAllocatablePod', 'requests', 'min', 'max', 'limits'];

/** kube-openapi's name of a JSON value's type. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The error of a value at `field` that is not of `types` (`integer,string` for int-or-string). */
function typeError(field: string, value: unknown, types: readonly string[]): FieldError[] {
  const actual = jsonType(value);
  if (types.includes(actual)) return [];
  const message = `Invalid value: ${JSON.stringify(actual)}: ${field} in body must be of type ${types.join(',')}: ${JSON.stringify(actual)}`;
  return [{ type: 'FieldValueInvalid', field, message }];
}

/** The errors of a map of `types` values at `field`. */
function mapErrors(field: string, value: unknown, types: readonly string[]): FieldError[] {
  const notObject = typeError(field, value, ['object']);
  if (notObject.length > 0) return notObject;
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) =>
    typeError(`${field}.${key}`, v, types),
  );
}

function entryErrors(field: string, entry: unknown): FieldError[] {
  const notObject = typeError(field, entry, ['object']);
  if (notObject.length > 0) return notObject;
  const fields = entry as Record<string, unknown>;
  const errors: FieldError[] =
    fields.container === undefined
      ? [{ type: 'FieldValueRequired', field: `${field}.container`, message: 'Required value' }]
      : typeError(`${field}.container`, fields.container, ['string']);
  if (fields.perAllocatable !== undefined)
    errors.push(...mapErrors(`${field}.perAllocatable`, fields.perAllocatable, ['string']));
  for (const name of QUANTITY_MAPS)
    if (fields[name] !== undefined)
      errors.push(...mapErrors(`${field}.${name}`, fields[name], ['integer', 'string']));
  return errors;
}

/** The schema errors of `spec.nodeSizing` of an everynode.dev/v1 DaemonSet's `spec`. */
export function nodeSizingSchemaErrors(spec: unknown): FieldError[] {
  const value = (spec as { nodeSizing?: unknown } | undefined)?.nodeSizing;
  if (value === undefined) return [];
  const notArray = typeError('spec.nodeSizing', value, ['array']);
  if (notArray.length > 0) return notArray;
  return (value as unknown[]).flatMap((entry, i) => entryErrors(`spec.nodeSizing[${i}]`, entry));
}
