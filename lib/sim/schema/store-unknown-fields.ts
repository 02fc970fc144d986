/**
 * Unknown fields of a decoded object and their removal: what decoding JSON into a Go struct drops
 * for built-in kinds (sigs.k8s.io/json with DisallowUnknownFields reporting them), and what
 * structural pruning drops for custom resources (apiextensions-apiserver
 * pkg/apiserver/schema/pruning PruneWithOptions, plus schemaobjectmeta for metadata).
 */
import type { ResourceKey } from './resources.ts';
import {
  childSchema,
  type FieldSchema,
  fieldSchemaOf,
  isCustomResource,
  itemSchema,
} from './store-field-schema.ts';

/** One field the schema does not know, and where to delete it. */
interface UnknownField {
  /** `spec.template.spec.containers[0].imagee`, as the decoders report it. */
  readonly path: string;
  readonly parent: Record<string, unknown>;
  readonly key: string;
}

/** Appends the unknown fields at or below `value` (schema `schema`, at `path`) to `out`. */
function collect(value: unknown, schema: FieldSchema, path: string, out: UnknownField[]): void {
  if (schema.kind === 'free' || schema.kind === 'scalar' || value === null || typeof value !== 'object')
    return;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    for (let i = 0; i < value.length; i += 1) collect(value[i], items, `${path}[${i}]`, out);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    const child = childSchema(schema, key);
    if (child === undefined) out.push({ path: childPath, parent: record, key });
    else collect(record[key], child, childPath, out);
  }
}

/**
 * Orders unknown-field paths as the decoder of `key` reports them: document order for built-in
 * kinds; for custom resources the metadata ones first, then the pruned ones sorted
 * (unstructuredSchemaCoercer.apply, PruneWithOptions sorts its paths).
 */
export function orderUnknownPaths(key: ResourceKey, paths: readonly string[]): string[] {
  if (!isCustomResource(key)) return [...paths];
  const meta = paths.filter((p) => p.startsWith('metadata.'));
  const rest = paths.filter((p) => !p.startsWith('metadata.')).sort();
  return [...meta, ...rest];
}

/**
 * Removes the fields of `obj` (a fresh, unshared object of resource `key`) that its schema does not
 * know, as decoding does, and returns their paths in the decoder's order. `beforeRemoval` sees the
 * paths and the object as it was (and may throw to refuse it, as fieldValidation=Strict does).
 */
export function pruneUnknownFields(
  key: ResourceKey,
  obj: Record<string, unknown>,
  beforeRemoval?: (paths: readonly string[], original: Readonly<Record<string, unknown>>) => void,
): string[] {
  const found: UnknownField[] = [];
  collect(obj, fieldSchemaOf(key), '', found);
  const paths = orderUnknownPaths(
    key,
    found.map((f) => f.path),
  );
  beforeRemoval?.(paths, obj);
  for (const field of found) delete field.parent[field.key];
  return paths;
}
