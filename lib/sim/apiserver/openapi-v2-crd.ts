/**
 * The everynode.dev CRD's schema as a real apiserver publishes it in OpenAPI v2: the manifest's
 * openAPIV3Schema (infra/k8s/crd-daemonsets.everynode.dev.yaml, via lib/sim/schema/crd.ts) converted the
 * way apiextensions-apiserver does (pkg/controller/openapi/v2/conversion.go ToStructuralOpenAPIV2),
 * then completed like pkg/controller/openapi/builder/builder.go buildKubeNative: metadata as a
 * `$ref` to ObjectMeta, apiVersion and kind as strings, and the group/version/kind extension.
 */
import { everynodeCrdVersion } from '../schema/crd.ts';
import type { ResourceDefinition } from '../schema/resources.ts';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(s: Readonly<Schema>): Record<string, Schema> {
  return isSchema(s.properties) ? (s.properties as Record<string, Schema>) : {};
}

/**
 * Rewrites one schema node in place as ToStructuralOpenAPIV2's visitor does: drops the junctors
 * (allOf/oneOf/anyOf/not) and `nullable` (making nullable values untyped), and leaves
 * preserve-unknown-fields values and item-less arrays untyped and without properties, since
 * kubectl's validation would otherwise reject the unknown fields they allow. A nullable property is
 * no longer required.
 */
function convertNode(s: Schema): void {
  for (const junctor of ['allOf', 'oneOf', 'anyOf', 'not']) delete s[junctor];
  const nullable = s.nullable === true;
  delete s.nullable;
  if (nullable) {
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    delete s.items;
    delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (preserve && s.type === 'object') delete s.type;
  const properties = propertiesOf(s);
  if (Array.isArray(s.required)) {
    const required = s.required.filter((f) => properties[String(f)]?.nullable !== true);
    const additional = isSchema(s.additionalProperties) && s.additionalProperties.nullable === true;
    if (required.length === 0 || additional) delete s.required;
    else s.required = required;
  }
}

/** Converts `s` and, parent first (as structuralschema.Visitor visits), everything below it. */
function convertTree(s: Schema): void {
  convertNode(s);
  for (const child of Object.values(propertiesOf(s))) convertTree(child);
  if (isSchema(s.items)) convertTree(s.items);
  if (isSchema(s.additionalProperties)) convertTree(s.additionalProperties);
}

/**
 * The v3 → v2 conversion of a CRD schema (a converted deep copy; the input is left unchanged), as
 * apiextensions-apiserver's ToStructuralOpenAPIV2 produces it.
 */
export function toOpenApiV2Schema(v3: Readonly<Schema>): Schema {
  const copy = structuredClone(v3) as Schema;
  convertTree(copy);
  return copy;
}

/**
 * The v2 definition of the CRD kind `r` (`dev.everynode.v1.DaemonSet`): the manifest's schema
 * converted to v2, with metadata, apiVersion and kind replaced and tagged with its group/version/kind.
 */
export function crdV2Schema(r: Readonly<ResourceDefinition>): Schema {
  const declared = (everynodeCrdVersion().schema?.openAPIV3Schema ?? { type: 'object' }) as Schema;
  const schema = toOpenApiV2Schema(declared);
  schema.properties = {
    ...propertiesOf(schema),
    apiVersion: {
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
      type: 'string',
    },
    kind: {
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.',
      type: 'string',
    },
    metadata: {
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      description: "Standard object's metadata.",
    },
  };
  schema['x-kubernetes-group-version-kind'] = [{ group: r.group, kind: r.kind, version: r.version }];
  return schema;
}
