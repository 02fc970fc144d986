/**
 * The `definitions` of the OpenAPI v2 document (GET /openapi/v2), generated from the same type
 * table as /openapi/v3 (lib/sim/openapi-types*.ts) in the shape kube-openapi publishes in v2:
 * `$ref`s as `#/definitions/<name>`, `required` lists, patch metadata on lists, kinds and their lists
 * tagged with `x-kubernetes-group-version-kind`, and Time, MicroTime, Quantity and IntOrString as
 * their own definitions (k8s.io/apimachinery OpenAPIDefinition of each type). kubectl builds its
 * client-side validation from these (k8s.io/kubectl/pkg/util/openapi NewOpenAPIData).
 */
import {
  type FieldType,
  type ScalarCode,
  type TypeSpec,
  typeClosure,
  typeSpec,
} from '../schema/openapi-types.ts';
import { type ResourceDefinition, resources } from '../schema/resources.ts';
import { crdV2Schema } from './openapi-v2-crd.ts';
import { requiredFields } from './openapi-v2-required.ts';

/** A JSON schema object. */
export type Schema = Record<string, unknown>;

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const timeName = `${meta}Time`;
const microTimeName = `${meta}MicroTime`;
const quantityName = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const intOrStringName = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/** The `$ref` to definition `name`. */
export function definitionRef(name: string): Schema {
  return { $ref: `#/definitions/${name}` };
}

const stringSchema = { type: 'string' };

/** Definitions that are not in the type table: the scalar types and list/patch/status metadata. */
const fixedDefinitions: Readonly<Record<string, Schema>> = {
  [timeName]: { type: 'string', format: 'date-time' },
  [microTimeName]: { type: 'string', format: 'date-time' },
  [quantityName]: { type: 'string' },
  [intOrStringName]: { type: 'string', format: 'int-or-string' },
  [`${meta}ListMeta`]: {
    type: 'object',
    properties: {
      continue: stringSchema,
      remainingItemCount: { type: 'integer', format: 'int64' },
      resourceVersion: stringSchema,
      selfLink: stringSchema,
    },
  },
  [`${meta}Patch`]: { type: 'object' },
  [`${meta}StatusCause`]: {
    type: 'object',
    properties: { field: stringSchema, message: stringSchema, reason: stringSchema },
  },
  [`${meta}StatusDetails`]: {
    type: 'object',
    properties: {
      causes: {
        type: 'array',
        items: definitionRef(`${meta}StatusCause`),
        'x-kubernetes-list-type': 'atomic',
      },
      group: stringSchema,
      kind: stringSchema,
      name: stringSchema,
      retryAfterSeconds: { type: 'integer', format: 'int32' },
      uid: stringSchema,
    },
  },
  [`${meta}Status`]: {
    type: 'object',
    properties: {
      apiVersion: stringSchema,
      code: { type: 'integer', format: 'int32' },
      details: definitionRef(`${meta}StatusDetails`),
      kind: stringSchema,
      message: stringSchema,
      metadata: definitionRef(`${meta}ListMeta`),
      reason: stringSchema,
      status: stringSchema,
    },
    'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
  },
};

const scalarSchemas: Readonly<Record<ScalarCode, Schema>> = {
  s: stringSchema,
  i32: { type: 'integer', format: 'int32' },
  i64: { type: 'integer', format: 'int64' },
  n: { type: 'number', format: 'double' },
  b: { type: 'boolean' },
  time: definitionRef(timeName),
  microtime: definitionRef(microTimeName),
  bytes: { type: 'string', format: 'byte' },
  ios: definitionRef(intOrStringName),
  q: definitionRef(quantityName),
  any: { type: 'object' },
  json: {},
};

function schemaOf(type: FieldType): Schema {
  switch (type.kind) {
    case 'scalar':
      return { ...scalarSchemas[type.scalar] };
    case 'ref':
      return definitionRef(typeSpec(type.name)?.definition ?? type.name);
    case 'array':
      return { type: 'array', items: schemaOf(type.items) };
    case 'map':
      return { type: 'object', additionalProperties: schemaOf(type.values) };
  }
}

/** The v2 definition of one table entry: typed properties, patch metadata and `required`. */
function tableDefinition(spec: Readonly<TypeSpec>): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of spec.fields.values()) {
    properties[field.name] = {
      ...schemaOf(field.type),
      ...(field.patchMergeKey ? { 'x-kubernetes-patch-merge-key': field.patchMergeKey } : {}),
      ...(field.patchStrategy ? { 'x-kubernetes-patch-strategy': field.patchStrategy } : {}),
    };
  }
  const required = (requiredFields[spec.name] ?? '').split(' ').filter((f) => spec.fields.has(f));
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties };
}

/** The group/version/kind tag kube-openapi puts on a kind's definition (a one-element list). */
export function gvkExtension(group: string, version: string, kind: string): Schema {
  return { 'x-kubernetes-group-version-kind': [{ group, kind, version }] };
}

/** The `<Kind>List` definition of resource `r` whose items are `itemDefinition`. */
export function listDefinition(r: Readonly<ResourceDefinition>, itemDefinition: string): Schema {
  return {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: stringSchema,
      items: { type: 'array', items: definitionRef(itemDefinition) },
      kind: stringSchema,
      metadata: definitionRef(`${meta}ListMeta`),
    },
    ...gvkExtension(r.group, r.version, r.listKind),
  };
}

/** The OpenAPI definition name of a resource's kind, or undefined for kinds outside the table. */
export function kindDefinitionName(r: Readonly<ResourceDefinition>): string | undefined {
  if (r.group === 'everynode.dev') return `dev.everynode.${r.version}.${r.kind}`;
  return typeSpec(r.kind)?.definition;
}

/**
 * Every definition of the v2 document by name (sorted, as kube-openapi emits them): each built-in
 * served kind with the schemas it references and its list, the everynode.dev CRD (lib/sim/apiserver/openapi-v2-crd.ts) and its
 * list, and the fixed metadata definitions.
 */
export function v2Definitions(): Record<string, Schema> {
  const builtin = resources.filter((r) => r.group !== 'everynode.dev' && typeSpec(r.kind));
  const definitions: Record<string, Schema> = { ...fixedDefinitions };
  for (const spec of typeClosure(builtin.map((r) => r.kind)))
    definitions[spec.definition] = tableDefinition(spec);
  for (const r of builtin) {
    const name = kindDefinitionName(r) ?? r.kind;
    definitions[name] = { ...definitions[name], ...gvkExtension(r.group, r.version, r.kind) };
    // Kinds that cannot be listed (SelfSubjectAccessReview) have no list type.
    if (r.verbs.includes('list')) definitions[name.replace(/[^.]+$/, r.listKind)] = listDefinition(r, name);
  }
  for (const r of resources.filter((r) => r.group === 'everynode.dev')) {
    const name = kindDefinitionName(r) ?? r.kind;
    definitions[name] = crdV2Schema(r);
    definitions[name.replace(/[^.]+$/, r.listKind)] = listDefinition(r, name);
  }
  return Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
