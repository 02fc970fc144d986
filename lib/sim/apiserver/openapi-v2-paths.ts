/**
 * The `paths` of the OpenAPI v2 document, shaped like the apiserver's route documentation
 * (apiserver/pkg/endpoints/installer.go, rendered by kube-openapi's v2 builder): per resource the
 * collection, item and subresource paths with operations tagged `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`, what each PATCH consumes (kubectl's v2 fallback picks the patch
 * type from it: k8s.io/kubectl/pkg/util/openapi GetConsumes) and the `fieldValidation` query
 * parameter kubectl's v2 verifier looks for (cli-runtime/pkg/resource/query_param_verifier.go).
 */

import type { ResourceDefinition } from '../schema/resources.ts';
import { definitionRef, kindDefinitionName, type Schema } from './openapi-v2-definitions.ts';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

function query(name: string, description: string, type = 'string'): Schema {
  return { uniqueItems: true, type, description, name, in: 'query' };
}

function pathParameter(name: string, description: string): Schema {
  return { uniqueItems: true, type: 'string', description, name, in: 'path', required: true };
}

const dryRun = query('dryRun', 'When present, indicates that modifications should not be persisted.');
const fieldManager = query(
  'fieldManager',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
const fieldValidation = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
);
const listParameters = [
  query('allowWatchBookmarks', 'allowWatchBookmarks requests watch events with type "BOOKMARK".', 'boolean'),
  query('continue', 'The continue option should be set when retrieving more results from the server.'),
  query('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
  query('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
  query('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  query(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  query(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  query('sendInitialEvents', 'sendInitialEvents=true may be set together with watch=true.', 'boolean'),
  query('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  query('watch', 'Watch for changes to the described resources.', 'boolean'),
];

const deleteParameters = [
  dryRun,
  query('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.', 'integer'),
  query('propagationPolicy', 'Whether and how garbage collection will be performed.'),
];

/** `AppsV1`, `CoreV1`, `EverynodeDevV1`: the group version part of operation ids. */
function groupVersionId(r: Readonly<ResourceDefinition>): string {
  const group = (r.group === '' ? 'core' : r.group.replace(/\.k8s\.io$/, ''))
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return group + r.version.charAt(0).toUpperCase() + r.version.slice(1);
}

function operation(
  r: Readonly<ResourceDefinition>,
  action: string,
  id: string,
  response: string,
  extra: Schema = {},
): Schema {
  const gv = groupVersionId(r);
  const produces = ['application/json', 'application/yaml'];
  if (r.group !== 'everynode.dev') produces.push('application/vnd.kubernetes.protobuf');
  return {
    consumes: ['*/*'],
    produces,
    schemes: ['https'],
    tags: [`${gv.charAt(0).toLowerCase()}${gv.slice(1, -r.version.length)}_${r.version}`],
    operationId: id.replace('%', gv),
    responses: {
      '200': { description: 'OK', schema: definitionRef(response) },
      '401': { description: 'Unauthorized' },
    },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: r.group, kind: r.kind, version: r.version },
    ...extra,
  };
}

function writeOperation(r: Readonly<ResourceDefinition>, action: string, id: string, kind: string): Schema {
  const body = { name: 'body', in: 'body', required: true, schema: definitionRef(kind) };
  return operation(r, action, id, kind, { parameters: [body, dryRun, fieldManager, fieldValidation] });
}

function patchOperation(r: Readonly<ResourceDefinition>, id: string, kind: string): Schema {
  const consumes = ['application/json-patch+json', 'application/merge-patch+json'];
  if (r.group !== 'everynode.dev') consumes.push('application/strategic-merge-patch+json');
  consumes.push('application/apply-patch+yaml');
  const body = { name: 'body', in: 'body', required: true, schema: definitionRef(`${meta}Patch`) };
  const force = query('force', 'Force is going to "force" Apply requests.', 'boolean');
  return operation(r, 'patch', id, kind, {
    consumes,
    parameters: [body, dryRun, fieldManager, fieldValidation, force],
  });
}

/** The v2 paths of resource `r`: collection, item and each subresource, with their operations. */
export function resourceV2Paths(r: Readonly<ResourceDefinition>): Record<string, Schema> {
  const kind = kindDefinitionName(r) ?? r.kind;
  const list = kind.replace(/[^.]+$/, r.listKind);
  const scope = r.namespaced ? 'Namespaced' : '';
  const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const collection = `${prefix}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
  const common = [
    ...(r.namespaced
      ? [pathParameter('namespace', 'object name and auth scope, such as for teams and projects')]
      : []),
    query('pretty', "If 'true', then the output is pretty printed."),
  ];
  const name = pathParameter('name', `name of the ${r.kind}`);
  const post = writeOperation(r, 'post', `create%${scope}${r.kind}`, kind);
  // A create-only resource (SelfSubjectAccessReview) has nothing but POST on its collection.
  if (!r.verbs.includes('get')) return { [collection]: { post, parameters: common } };
  const paths: Record<string, Schema> = {
    [collection]: {
      get: operation(r, 'list', `list%${scope}${r.kind}`, list, { parameters: listParameters }),
      post,
      parameters: common,
    },
    [`${collection}/{name}`]: {
      get: operation(r, 'get', `read%${scope}${r.kind}`, kind),
      put: writeOperation(r, 'put', `replace%${scope}${r.kind}`, kind),
      delete: operation(r, 'delete', `delete%${scope}${r.kind}`, `${meta}Status`, {
        parameters: deleteParameters,
      }),
      patch: patchOperation(r, `patch%${scope}${r.kind}`, kind),
      parameters: [name, ...common],
    },
  };
  for (const sub of r.subresources) {
    const suffix = sub.charAt(0).toUpperCase() + sub.slice(1);
    paths[`${collection}/{name}/${sub}`] = {
      get: operation(r, 'get', `read%${scope}${r.kind}${suffix}`, kind),
      put: writeOperation(r, 'put', `replace%${scope}${r.kind}${suffix}`, kind),
      patch: patchOperation(r, `patch%${scope}${r.kind}${suffix}`, kind),
      parameters: [name, ...common],
    };
  }
  return paths;
}
