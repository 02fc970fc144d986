import { describe, expect, it } from 'vitest';
import { openApiV3Document, openApiV3Index } from '../../../lib/sim/apiserver/openapi.ts';

type Json = Record<string, unknown>;

/** The document at `path`; fails the test when it is not served. */
function documentAt(path: string): Json {
  const doc = openApiV3Document(path);
  if (!doc) throw new Error(`no OpenAPI document at ${path}`);
  return doc;
}
const schemaOf = (doc: Json, definition: string) =>
  ((doc.components as Json).schemas as Record<string, Json>)[definition];
const property = (schema: Json | undefined, name: string) =>
  ((schema?.properties ?? {}) as Record<string, Json>)[name];
const patchAt = (doc: Json, path: string) =>
  ((doc.paths as Record<string, Json>)[path] as Json).patch as Json;

describe('openApiV3Index', () => {
  it('lists each served group version with a content hash', () => {
    const index = openApiV3Index();
    expect(Object.keys(index.paths)).toEqual([
      'api/v1',
      'apis/apps/v1',
      'apis/authorization.k8s.io/v1',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/everynode.dev/v1',
    ]);
    expect(index.paths['apis/apps/v1']?.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
    );
  });
});

describe('openApiV3Document', () => {
  it('publishes patch strategies and merge keys kubectl apply builds its patch from', () => {
    const doc = documentAt('apis/apps/v1');
    const podSpec = schemaOf(doc, 'io.k8s.api.core.v1.PodSpec');
    expect(property(podSpec, 'containers')).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' },
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
    });
    expect(property(podSpec, 'volumes')).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge,retainKeys' });
    expect(property(podSpec, 'tolerations')).not.toHaveProperty('x-kubernetes-patch-strategy');
    const container = schemaOf(doc, 'io.k8s.api.core.v1.Container');
    expect(property(container, 'volumeMounts')).toMatchObject({
      'x-kubernetes-patch-merge-key': 'mountPath',
    });
    expect(property(container, 'ports')).toMatchObject({ 'x-kubernetes-patch-merge-key': 'containerPort' });
  });

  it('tags kinds with their group version kind', () => {
    const doc = documentAt('apis/apps/v1');
    expect(schemaOf(doc, 'io.k8s.api.apps.v1.DaemonSet')?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', kind: 'DaemonSet', version: 'v1' },
    ]);
  });

  it('offers strategic merge patch and fieldValidation on built-in PATCH operations', () => {
    const doc = documentAt('apis/apps/v1');
    const patch = patchAt(doc, '/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}');
    expect(Object.keys((patch.requestBody as Json).content as Json)).toContain(
      'application/strategic-merge-patch+json',
    );
    expect((patch.parameters as Json[]).map((p) => p.name)).toContain('fieldValidation');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'DaemonSet',
    });
  });

  it('serves the CRD schema without strategic merge patch, as for any custom resource', () => {
    const doc = documentAt('apis/everynode.dev/v1');
    const patch = patchAt(doc, '/apis/everynode.dev/v1/namespaces/{namespace}/daemonsets/{name}');
    expect(Object.keys((patch.requestBody as Json).content as Json)).not.toContain(
      'application/strategic-merge-patch+json',
    );
    const schema = schemaOf(doc, 'dev.everynode.v1.DaemonSet');
    expect(property(schema, 'metadata')).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    expect(schemaOf(doc, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')).toBeDefined();
  });

  it('covers core kinds and answers undefined for unknown group versions', () => {
    const core = documentAt('api/v1');
    for (const kind of ['Pod', 'Node', 'Namespace', 'Event']) {
      expect(schemaOf(core, `io.k8s.api.core.v1.${kind}`)).toBeDefined();
    }
    expect(openApiV3Document('apis/batch/v1')).toBeUndefined();
  });
});
