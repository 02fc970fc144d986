import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  openApiV2Document,
  openApiV2Negotiate,
  openApiV2Protobuf,
} from '../../../lib/sim/apiserver/openapi-v2.ts';
import {
  decodeFields,
  type Fields,
  message,
  messages,
  named,
  string,
  strings,
} from './openapi-v2-proto-decode.ts';

type Json = Record<string, unknown>;

const doc = openApiV2Document();
const definitions = doc.definitions as Record<string, Json>;
const paths = doc.paths as Record<string, Record<string, Json>>;
const property = (definition: string, name: string) =>
  (definitions[definition]?.properties as Record<string, Json> | undefined)?.[name];

/** Every `$ref` anywhere below `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
}

describe('openApiV2Document', () => {
  it('tags every served kind and its list with its group/version/kind', () => {
    const gvk = (name: string) => definitions[name]?.['x-kubernetes-group-version-kind'];
    expect(gvk('io.k8s.api.apps.v1.DaemonSet')).toEqual([
      { group: 'apps', kind: 'DaemonSet', version: 'v1' },
    ]);
    expect(gvk('io.k8s.api.core.v1.Node')).toEqual([{ group: '', kind: 'Node', version: 'v1' }]);
    expect(gvk('io.k8s.api.core.v1.PodList')).toEqual([{ group: '', kind: 'PodList', version: 'v1' }]);
    expect(gvk('dev.everynode.v1.DaemonSet')).toEqual([
      { group: 'everynode.dev', kind: 'DaemonSet', version: 'v1' },
    ]);
    expect(gvk('dev.everynode.v1.DaemonSetList')).toEqual([
      { group: 'everynode.dev', kind: 'DaemonSetList', version: 'v1' },
    ]);
  });

  it.each([
    { definition: 'io.k8s.api.apps.v1.DaemonSetSpec', required: ['selector', 'template'] },
    { definition: 'io.k8s.api.core.v1.Container', required: ['name'] },
    { definition: 'io.k8s.api.core.v1.NodeCondition', required: ['status', 'type'] },
    {
      definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
      required: ['apiVersion', 'kind', 'name', 'uid'],
    },
    { definition: 'io.k8s.api.core.v1.PodList', required: ['items'] },
    { definition: 'io.k8s.api.core.v1.NodeSpec', required: undefined },
  ])('lists the required fields of $definition', ({ definition, required }) => {
    expect(definitions[definition]?.required).toEqual(required);
  });

  it('types fields, with refs to the scalar definitions and patch metadata on lists', () => {
    expect(property('io.k8s.api.core.v1.PodSpec', 'containers')).toEqual({
      type: 'array',
      items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' },
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(property('io.k8s.api.core.v1.ContainerPort', 'containerPort')).toEqual({
      type: 'integer',
      format: 'int32',
    });
    expect(property('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'creationTimestamp')).toEqual({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    });
    expect(property('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'labels')).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toEqual({
      type: 'string',
      format: 'int-or-string',
    });
  });

  it('resolves every $ref to a definition of the document', () => {
    const missing = refsIn(doc).filter((ref) => !definitions[ref.replace('#/definitions/', '')]);
    expect(missing).toEqual([]);
  });

  it('publishes the CRD schema from the manifest with ObjectMeta metadata', () => {
    expect(property('dev.everynode.v1.DaemonSet', 'metadata')).toMatchObject({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    const spec = property('dev.everynode.v1.DaemonSet', 'spec') as Json;
    expect(spec.required).toEqual(['selector', 'template']);
    const child = (schema: Json | undefined, name: string) =>
      (schema?.properties as Record<string, Json> | undefined)?.[name];
    const rollingUpdate = child(child(spec, 'updateStrategy'), 'rollingUpdate') ?? {};
    expect(Object.keys(rollingUpdate.properties ?? {})).toEqual(
      expect.arrayContaining(['partition', 'paused', 'selector', 'strict', 'maxUnavailable']),
    );
  });

  it('describes PATCH with what it consumes and the fieldValidation parameter', () => {
    const builtin = paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}']?.patch as Json;
    expect(builtin.consumes).toContain('application/strategic-merge-patch+json');
    expect(builtin['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      kind: 'DaemonSet',
      version: 'v1',
    });
    expect((builtin.parameters as Json[]).map((p) => p.name)).toContain('fieldValidation');
    const custom = paths['/apis/everynode.dev/v1/namespaces/{namespace}/daemonsets/{name}']?.patch as Json;
    expect(custom.consumes).not.toContain('application/strategic-merge-patch+json');
    expect(paths['/api/v1/nodes/{name}/status']?.patch?.operationId).toBe('patchCoreV1NodeStatus');
  });
});

describe('openApiV2Protobuf', () => {
  const document = decodeFields(openApiV2Protobuf());
  const protoDefinitions = named(message(document, 9) ?? new Map(), 1);
  const properties = (schema: Fields | undefined) => named(message(schema ?? new Map(), 25) ?? new Map(), 1);
  const extensions = (fields: Fields, field: number) =>
    new Map([...named(fields, field)].map(([name, any]) => [name, parse(string(any, 2)) as unknown]));

  it('is built once per process', () => {
    expect(openApiV2Protobuf()).toBe(openApiV2Protobuf());
  });

  it('encodes the same document as gnostic openapi.v2.Document', () => {
    expect(string(document, 1)).toBe('2.0');
    expect(string(message(document, 2) ?? new Map(), 1)).toBe('Kubernetes');
    expect([...protoDefinitions.keys()]).toEqual(Object.keys(definitions));
  });

  it('encodes a kind with its required fields, typed properties, refs and vendor extensions', () => {
    const spec = protoDefinitions.get('io.k8s.api.apps.v1.DaemonSetSpec');
    expect(spec && strings(spec, 19)).toEqual(['selector', 'template']);
    expect(string(properties(spec).get('selector') ?? new Map(), 1)).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector',
    );
    const daemonSet = protoDefinitions.get('io.k8s.api.apps.v1.DaemonSet') ?? new Map();
    expect(extensions(daemonSet, 31).get('x-kubernetes-group-version-kind')).toEqual([
      { group: 'apps', kind: 'DaemonSet', version: 'v1' },
    ]);
    const containers =
      properties(protoDefinitions.get('io.k8s.api.core.v1.PodSpec')).get('containers') ?? new Map();
    expect(strings(message(containers, 22) ?? new Map(), 1)).toEqual(['array']);
    const items = messages(message(containers, 23) ?? new Map(), 1);
    expect(items.map((item) => string(item, 1))).toEqual(['#/definitions/io.k8s.api.core.v1.Container']);
    expect(extensions(containers, 31).get('x-kubernetes-patch-merge-key')).toBe('name');
    const labels = properties(protoDefinitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')).get(
      'labels',
    );
    const additional = message(message(labels ?? new Map(), 21) ?? new Map(), 1) ?? new Map();
    expect(strings(message(additional, 22) ?? new Map(), 1)).toEqual(['string']);
  });

  it('encodes the PATCH operation with its GVK and the fieldValidation query parameter', () => {
    const pathItems = named(message(document, 8) ?? new Map(), 2);
    const item = pathItems.get('/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}') ?? new Map();
    const patch = message(item, 8) ?? new Map();
    expect(strings(patch, 7)).toContain('application/strategic-merge-patch+json');
    expect(extensions(patch, 13).get('x-kubernetes-group-version-kind')).toEqual({
      group: 'apps',
      kind: 'DaemonSet',
      version: 'v1',
    });
    const queryNames = messages(patch, 8).map((p) => {
      const nonBody = message(message(p, 1) ?? new Map(), 2);
      return string(message(nonBody ?? new Map(), 3) ?? new Map(), 4);
    });
    expect(queryNames).toContain('fieldValidation');
  });
});

describe('openApiV2Negotiate', () => {
  it.each([
    { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', form: 'protobuf' },
    { accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', form: 'protobuf' },
    { accept: 'application/json', form: 'json' },
    { accept: undefined, form: 'json' },
    { accept: '*/*', form: 'json' },
    {
      accept: 'application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      form: 'protobuf',
    },
    { accept: 'text/html', form: undefined },
  ])('answers $accept with $form', ({ accept, form }) => {
    expect(openApiV2Negotiate(accept)).toBe(form);
  });
});
