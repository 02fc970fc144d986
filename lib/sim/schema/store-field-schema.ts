/**
 * Which fields an object of each served resource may carry, for the decoder's unknown-field rules:
 * built-in kinds know exactly the fields of their Go structs (the OpenAPI type table of
 * lib/sim/schema/openapi-types.ts, which lists the models of @kubernetes/client-node), custom resources
 * the structural schema of their CRD (apiextensions-apiserver/pkg/apiserver/schema: properties,
 * additionalProperties, items, x-kubernetes-preserve-unknown-fields, x-kubernetes-embedded-resource,
 * x-kubernetes-int-or-string), with ObjectMeta at the root.
 */
import { everynodeCrdVersion } from './crd.ts';
import { builtinRootType, type FieldType, typeSpec } from './openapi-types.ts';
import type { ResourceKey } from './resources.ts';
import { asRecord } from './store-json.ts';

/** The shape of a value: which keys of an object are known and what lies below them. */
export type FieldSchema =
  /** Anything goes below (RawExtension, preserve-unknown-fields without properties). */
  | { readonly kind: 'free' }
  /** A string, number or boolean; nothing below to check. */
  | { readonly kind: 'scalar' }
  /** A struct: `field(name)` is undefined for a field it does not have. */
  | {
      readonly kind: 'object';
      readonly field: (name: string) => FieldSchema | undefined;
      /** Unknown keys are kept (x-kubernetes-preserve-unknown-fields with properties). */
      readonly preserveUnknown: boolean;
    }
  | { readonly kind: 'array'; readonly items: FieldSchema }
  | { readonly kind: 'map'; readonly values: FieldSchema };

const free: FieldSchema = { kind: 'free' };
const scalar: FieldSchema = { kind: 'scalar' };

/** The schema of `key` inside `schema`: undefined when `schema` is a struct without that field. */
export function childSchema(schema: FieldSchema, key: string): FieldSchema | undefined {
  switch (schema.kind) {
    case 'object':
      return schema.field(key) ?? (schema.preserveUnknown ? free : undefined);
    case 'map':
      return schema.values;
    default:
      // A map where a scalar or list belongs is a type error of its own, not an unknown field.
      return free;
  }
}

/** The schema of the items of a list (free when `schema` is not a list). */
export function itemSchema(schema: FieldSchema): FieldSchema {
  return schema.kind === 'array' ? schema.items : free;
}

const typeSchemas = new Map<string, FieldSchema>();

/** The schema of a type-table field type; `any` (RawExtension, FieldsV1) and `json` are free. */
function fromFieldType(type: FieldType): FieldSchema {
  switch (type.kind) {
    case 'scalar':
      return type.scalar === 'any' || type.scalar === 'json' ? free : scalar;
    case 'ref':
      return typeSchema(type.name);
    case 'array':
      return { kind: 'array', items: fromFieldType(type.items) };
    case 'map':
      return { kind: 'map', values: fromFieldType(type.values) };
  }
}

/** The struct schema of type-table entry `name` (built once, children resolved lazily). */
export function typeSchema(name: string): FieldSchema {
  const cached = typeSchemas.get(name);
  if (cached) return cached;
  const spec = typeSpec(name);
  if (!spec) throw new Error(`the OpenAPI type table has no schema ${name}`);
  const children = new Map<string, FieldSchema>();
  const schema: FieldSchema = {
    kind: 'object',
    preserveUnknown: false,
    field: (field) => {
      const known = children.get(field);
      if (known) return known;
      const type = spec.fields.get(field)?.type;
      if (!type) return undefined;
      const made = fromFieldType(type);
      children.set(field, made);
      return made;
    },
  };
  typeSchemas.set(name, schema);
  return schema;
}

/** A struct schema over fixed children. */
function structOf(fields: ReadonlyMap<string, FieldSchema>, preserveUnknown: boolean): FieldSchema {
  return { kind: 'object', preserveUnknown, field: (name) => fields.get(name) };
}

/** The structural schema of one CRD openAPIV3Schema node (structural/pruning rules). */
export function fromJsonSchema(node: unknown, embedded = false): FieldSchema {
  const s = asRecord(node) ?? {};
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const properties = asRecord(s.properties);
  const isEmbedded = embedded || s['x-kubernetes-embedded-resource'] === true;
  if (s['x-kubernetes-int-or-string'] === true) return scalar;
  if (s.type === 'array') return { kind: 'array', items: s.items ? fromJsonSchema(s.items) : free };
  if (preserve && !properties && !isEmbedded) return free;
  const additional = s.additionalProperties;
  if (!properties && additional !== undefined && additional !== false && !isEmbedded) {
    return additional === true ? free : { kind: 'map', values: fromJsonSchema(additional) };
  }
  if (s.type !== 'object' && !properties && !isEmbedded) return preserve ? free : scalar;
  const fields = new Map<string, FieldSchema>();
  for (const [name, child] of Object.entries(properties ?? {})) fields.set(name, fromJsonSchema(child));
  if (isEmbedded) {
    // TypeMeta and ObjectMeta are implicit in embedded resources and at the root (pruning metaFields).
    fields.set('apiVersion', scalar);
    fields.set('kind', scalar);
    fields.set('metadata', typeSchema('ObjectMeta'));
  }
  return structOf(fields, preserve);
}

let customSchema: FieldSchema | undefined;

/** Whether `key` is a custom resource, decoded as unstructured and pruned by its CRD's schema. */
export function isCustomResource(key: ResourceKey): boolean {
  return builtinRootType(key) === undefined;
}

/** The schema of a whole object of resource `key`. */
export function fieldSchemaOf(key: ResourceKey): FieldSchema {
  const root = builtinRootType(key);
  if (root) return typeSchema(root);
  customSchema ??= fromJsonSchema(everynodeCrdVersion().schema?.openAPIV3Schema, true);
  return customSchema;
}
