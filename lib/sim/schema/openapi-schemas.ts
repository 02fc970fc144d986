/**
 * OpenAPI v3 schemas (components.schemas) generated from the type table, in the shape kube-openapi
 * publishes: struct refs as `#/components/schemas/<definition>`, lists carrying
 * x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key, kinds carrying
 * x-kubernetes-group-version-kind.
 */
import { type FieldType, type ScalarCode, type TypeSpec, typeClosure, typeSpec } from './openapi-types.ts';

/** A JSON schema object. */
export type Schema = Record<string, unknown>;

const scalarSchemas: Readonly<Record<ScalarCode, Schema>> = {
  s: { type: 'string' },
  i32: { type: 'integer', format: 'int32' },
  i64: { type: 'integer', format: 'int64' },
  n: { type: 'number', format: 'double' },
  b: { type: 'boolean' },
  time: { type: 'string', format: 'date-time' },
  microtime: { type: 'string', format: 'date-time' },
  bytes: { type: 'string', format: 'byte' },
  ios: { type: 'string', format: 'int-or-string' },
  q: { type: 'string' },
  any: { type: 'object' },
  json: {},
};

/** The `$ref` for schema short name `name`. */
export function refTo(name: string): Schema {
  const spec = typeSpec(name);
  return { $ref: `#/components/schemas/${spec?.definition ?? name}` };
}

function schemaOf(type: FieldType): Schema {
  switch (type.kind) {
    case 'scalar':
      return { ...scalarSchemas[type.scalar] };
    case 'ref':
      return refTo(type.name);
    case 'array':
      return { type: 'array', items: schemaOf(type.items) };
    case 'map':
      return { type: 'object', additionalProperties: schemaOf(type.values) };
  }
}

/** The object schema of one table entry, with patch metadata on its fields. */
export function objectSchema(spec: Readonly<TypeSpec>): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of spec.fields.values()) {
    properties[field.name] = {
      ...schemaOf(field.type),
      ...(field.patchStrategy ? { 'x-kubernetes-patch-strategy': field.patchStrategy } : {}),
      ...(field.patchMergeKey ? { 'x-kubernetes-patch-merge-key': field.patchMergeKey } : {}),
    };
  }
  return { type: 'object', properties };
}

/** A kind served in a group version: its schema short name and its group/version/kind. */
export interface KindSchema {
  readonly type: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** components.schemas for `kinds` and every schema they reference, kinds tagged with their GVK. */
export function componentSchemas(kinds: readonly KindSchema[]): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const spec of typeClosure(kinds.map((k) => k.type))) schemas[spec.definition] = objectSchema(spec);
  for (const k of kinds) {
    const definition = typeSpec(k.type)?.definition;
    const schema = definition ? schemas[definition] : undefined;
    if (schema)
      schema['x-kubernetes-group-version-kind'] = [{ group: k.group, kind: k.kind, version: k.version }];
  }
  return schemas;
}
