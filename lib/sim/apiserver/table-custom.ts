/**
 * The Table of a custom resource, from its CRD's additionalPrinterColumns, as
 * staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor builds it:
 * the first value of each simple JSONPath, typed by the column type; `date` columns become ages.
 */
import type { V1CustomResourceColumnDefinition } from '@kubernetes/client-node';
import type { KubeObject } from '../schema/store-types.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { column, nameColumn } from './table-columns.ts';
import { ageSince } from './table-format.ts';

/** The column definitions: Name, then each printer column as declared. */
export function customColumns(
  printerColumns: readonly V1CustomResourceColumnDefinition[],
): TableColumnDefinition[] {
  return [
    nameColumn,
    ...printerColumns.map((c) =>
      column(c.name, c.type, c.description ?? '', c.priority ?? 0, c.format ?? ''),
    ),
  ];
}

/** The value at a simple JSONPath such as `.status.numberReady` or `.spec.containers[0].image`. */
export function valueAtJsonPath(value: unknown, jsonPath: string): unknown {
  const path = jsonPath.replace(/^\{|\}$/g, '');
  const steps = path.split(/\.|\[(\d+)\]/).filter((step) => step !== undefined && step !== '');
  let node: unknown = value;
  for (const step of steps) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = Array.isArray(node) ? node[Number(step)] : (node as Record<string, unknown>)[step];
  }
  return node;
}

/** JSON with map keys sorted, as Go's encoding/json writes maps. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${goJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One cell of `type` for `value` (tableconvertor cellForJSONValue); null prints as `<none>`. */
function cell(type: string, value: unknown, now: Readonly<Date>): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return typeof value === 'object' ? goJson(value) : String(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageSince(value, now);
    default:
      return null;
  }
}

/** The cells of one custom resource row: its name, then each printer column's value. */
export function customCells(
  printerColumns: readonly V1CustomResourceColumnDefinition[],
  object: Readonly<KubeObject>,
  now: Readonly<Date>,
): unknown[] {
  return [
    object.metadata.name ?? '',
    ...printerColumns.map((c) => cell(c.type, valueAtJsonPath(object, c.jsonPath), now)),
  ];
}
