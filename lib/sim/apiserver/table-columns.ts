/**
 * Shared pieces of the Table printers: column definitions and typed access to JSON objects.
 */
import type { TableColumnDefinition } from './table-column-definition.ts';

/** A column of `type`, shown by `kubectl get` (priority 0) or only with `-o wide` (priority 1). */
export function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): TableColumnDefinition {
  return { name, type, format, description, priority };
}

/** The Name column every built-in printer starts with. */
export const nameColumn = column(
  'Name',
  'string',
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
  0,
  'name',
);

/** The Age column: time since creation. */
export const ageColumn = column(
  'Age',
  'string',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);

/** The JSON object at `path` inside `value` (dotted), or an empty object. */
export function objectAt(value: unknown, ...path: string[]): Record<string, unknown> {
  let node: unknown = value;
  for (const key of path)
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return typeof node === 'object' && node !== null && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : {};
}

/** The list at `key` of `value`, or an empty list. */
export function listAt(value: Readonly<Record<string, unknown>>, key: string): Record<string, unknown>[] {
  const list = value[key];
  return Array.isArray(list)
    ? (list.filter((item) => typeof item === 'object' && item !== null) as Record<string, unknown>[])
    : [];
}

/** The string at `key`, or ''. */
export function stringAt(value: Readonly<Record<string, unknown>>, key: string): string {
  const found = value[key];
  return typeof found === 'string' ? found : '';
}

/** The number at `key`, or 0 (Go's zero value, as the printers see an unset int). */
export function numberAt(value: Readonly<Record<string, unknown>>, key: string): number {
  const found = value[key];
  return typeof found === 'number' ? found : 0;
}
