/**
 * OpenAPI v3 documents for kubectl: GET /openapi/v3 (the index of group versions) and
 * GET /openapi/v3/<api/v1 | apis/<group>/<version>> (one group version's paths and schemas).
 * kubectl 1.33 reads them for `kubectl apply` (strategic merge patch metadata, via
 * staging/src/k8s.io/kubectl/pkg/cmd/apply/patcher.go buildStrategicMergePatchFromOpenAPIV3, which
 * needs the PATCH operation to accept application/strategic-merge-patch+json) and to learn that the
 * server validates fields itself (fieldValidation parameter of the PATCH operation,
 * staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go). /openapi/v2 (read
 * as protobuf, for client-side validation of `kind: List` applies) is openapi-v2.ts.
 */
import { createHash } from 'node:crypto';
import { everynodeCrdVersion } from '../schema/crd.ts';
import { componentSchemas, type KindSchema, refTo, type Schema } from '../schema/openapi-schemas.ts';
import { type ResourceDefinition, resources } from '../schema/resources.ts';

/** The answer to GET /openapi/v3: each group version's document path with its content hash. */
export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

const builtinTypes: Readonly<Record<string, string>> = {
  Namespace: 'Namespace',
  Node: 'Node',
  Pod: 'Pod',
  Event: 'Event',
  DaemonSet: 'DaemonSet',
  ControllerRevision: 'ControllerRevision',
  SelfSubjectAccessReview: 'SelfSubjectAccessReview',
  ClusterRoleBinding: 'ClusterRoleBinding',
  ClusterRole: 'ClusterRole',
  RoleBinding: 'RoleBinding',
  Role: 'Role',
  CustomResourceDefinition: 'CustomResourceDefinition',
};

function queryParameter(name: string, description: string): Schema {
  return { name, in: 'query', description, schema: { type: 'string' }, uniqueItems: true };
}

const writeParameters = [
  queryParameter('dryRun', 'When present, indicates that modifications should not be persisted.'),
  queryParameter(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  queryParameter(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.',
  ),
];

function operation(r: ResourceDefinition, action: string, extra: Schema = {}): Schema {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const json = { 'application/json': { schema: refTo(builtinTypes[r.kind] ?? r.kind) } };
  return {
    operationId: `${action}${r.kind}`,
    responses: { '200': { description: 'OK', content: json } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  };
}

function patchOperation(r: ResourceDefinition, schema: Schema, custom: boolean): Schema {
  const types = [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
  ];
  if (!custom) types.push('application/strategic-merge-patch+json');
  const content = Object.fromEntries(types.map((t) => [t, { schema: { type: 'object' } }]));
  return operation(r, 'patch', {
    parameters: [...writeParameters, queryParameter('force', 'Force is going to "force" Apply requests.')],
    requestBody: { content, required: true },
    responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } },
  });
}

function resourcePaths(r: ResourceDefinition, schema: Schema, custom: boolean): Record<string, Schema> {
  const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const collection = `${prefix}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
  const body = { content: { '*/*': { schema } }, required: true };
  const item = {
    get: operation(r, 'get'),
    put: operation(r, 'put', { parameters: writeParameters, requestBody: body }),
    patch: patchOperation(r, schema, custom),
    delete: operation(r, 'delete'),
  };
  const post = operation(r, 'post', { parameters: writeParameters, requestBody: body });
  // A create-only resource (SelfSubjectAccessReview) has nothing but POST on its collection.
  if (!r.verbs.includes('get')) return { [collection]: { post } };
  const paths: Record<string, Schema> = {
    [collection]: { get: operation(r, 'list'), post },
    [`${collection}/{name}`]: item,
  };
  for (const sub of r.subresources) paths[`${collection}/{name}/${sub}`] = { ...item, delete: undefined };
  return paths;
}

/** The CRD's schema as the apiserver publishes it: metadata replaced by ObjectMeta, GVK attached. */
function customSchema(r: ResourceDefinition): Schema {
  const declared = (everynodeCrdVersion().schema?.openAPIV3Schema ?? {}) as Schema;
  const properties = { ...(declared.properties as Schema | undefined), metadata: refTo('ObjectMeta') };
  return {
    ...declared,
    properties,
    'x-kubernetes-group-version-kind': [{ group: r.group, kind: r.kind, version: r.version }],
  };
}

/** The served group version at `path` (`api/v1`, `apis/<group>/<version>`). */
function servedAt(path: string): ResourceDefinition[] {
  return resources.filter(
    (r) => (r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`) === path,
  );
}

/**
 * The document served at GET /openapi/v3/<path> (`path` like `api/v1` or `apis/apps/v1`, without a
 * leading slash or query): paths of every served resource with PATCH accepting strategic merge patch
 * (built-in kinds only) and the fieldValidation parameter, and the schemas of its kinds with their
 * patch metadata; undefined when that group version is not served (404).
 */
export function openApiV3Document(path: string): Record<string, unknown> | undefined {
  const served = servedAt(path);
  if (served.length === 0) return undefined;
  const builtin = served.filter((r) => builtinTypes[r.kind] !== undefined && r.group !== 'everynode.dev');
  const kinds: KindSchema[] = builtin.map((r) => ({ type: builtinTypes[r.kind] ?? r.kind, ...r }));
  const schemas = componentSchemas(
    kinds.length > 0 ? kinds : [{ type: 'ObjectMeta', group: '', version: '', kind: '' }],
  );
  let paths: Record<string, Schema> = {};
  for (const r of served) {
    const custom = !builtin.includes(r);
    const schema = custom
      ? { $ref: `#/components/schemas/dev.everynode.${r.version}.${r.kind}` }
      : refTo(r.kind);
    if (custom) schemas[`dev.everynode.${r.version}.${r.kind}`] = customSchema(r);
    paths = { ...paths, ...resourcePaths(r, schema, custom) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0' },
    paths,
    components: { schemas },
  };
}

/** The answer to GET /openapi/v3: every served group version with a hash of its document. */
export function openApiV3Index(): OpenApiV3Index {
  const paths: OpenApiV3Index['paths'] = {};
  for (const r of resources) {
    const path = r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`;
    if (paths[path]) continue;
    const hash = createHash('sha512')
      .update(JSON.stringify(openApiV3Document(path)))
      .digest('hex')
      .toUpperCase();
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}
