import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { apiResourceList } from '../../../lib/sim/apiserver/discovery.ts';
import { openApiV3Document } from '../../../lib/sim/apiserver/openapi.ts';
import { openApiV2Document } from '../../../lib/sim/apiserver/openapi-v2.ts';
import { toTable } from '../../../lib/sim/apiserver/table.ts';
import { loadEverynodeCrd } from '../../../lib/sim/schema/crd.ts';
import { ClusterStore, type KubeObject } from '../../../lib/sim/storage/store.ts';
import {
  aClusterRoleBinding,
  aRoleBinding,
  groupSubject,
  serviceAccountSubject,
  userSubject,
} from '../../support/rbac-builders.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let server: ApiServer;
let url: string;
beforeAll(async () => {
  server = createApiServer(new ClusterStore());
  url = await server.listen();
});
afterAll(() => server.close());

async function send(method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the RBAC kinds and CRDs as served resources', () => {
  it.each([
    {
      name: 'a rule without verbs',
      path: `${rbac}/clusterroles`,
      body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
      message:
        'ClusterRole.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
    },
    {
      name: 'a namespaced rule on non-resource URLs',
      path: `${rbac}/namespaces/default/roles`,
      body: { metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] },
      message:
        'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    },
    {
      name: 'a ClusterRoleBinding to a Role',
      path: `${rbac}/clusterrolebindings`,
      body: {
        metadata: { name: 'b' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      },
      message:
        'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    },
    {
      name: 'a cluster-wide ServiceAccount subject without a namespace',
      path: `${rbac}/clusterrolebindings`,
      body: { ...aClusterRoleBinding('b', 'r', serviceAccountSubject('sa')), apiVersion: undefined },
      message:
        'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: subjects[0].namespace: Required value',
    },
    {
      name: 'a CRD not named <plural>.<group>',
      path: crds,
      body: { ...loadEverynodeCrd(), metadata: { name: 'eds.everynode.dev' } },
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "eds.everynode.dev" is invalid: metadata.name: Invalid value: "eds.everynode.dev": must be spec.names.plural+"."+spec.group',
    },
  ])('refuses $name with upstream 422', async ({ path, body, message }) => {
    const answer = await send('POST', path, body);
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(message);
  });

  it('defaults the apiGroup of roleRef and of User and Group subjects', async () => {
    const binding = aRoleBinding(
      'default',
      'rb',
      { kind: 'ClusterRole', name: 'view' },
      userSubject('u'),
      groupSubject('g'),
    );
    const bare = {
      ...binding,
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: binding.subjects?.map(({ apiGroup: _group, ...subject }) => subject),
    };
    const answer = await send('POST', `${rbac}/namespaces/default/rolebindings`, bare);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io' }, { apiGroup: 'rbac.authorization.k8s.io' }],
    });
  });

  it('keeps a binding from changing its roleRef', async () => {
    const binding = aClusterRoleBinding('fixed', 'view', groupSubject('g'));
    const stored = (await send('POST', `${rbac}/clusterrolebindings`, binding)).body as KubeObject;
    const changed = { ...stored, roleRef: { ...binding.roleRef, name: 'edit' } };
    const answer = await send('PUT', `${rbac}/clusterrolebindings/fixed`, changed);
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(
      'ClusterRoleBinding.rbac.authorization.k8s.io "fixed" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
  });

  it('creates a missing ClusterRole on PUT, as the RBAC registries allow', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:x' },
      rules: [],
    };
    expect((await send('PUT', `${rbac}/clusterroles/system:x`, role)).status).toBe(201);
  });

  it('stores a CRD established, its names accepted and its storage version recorded', async () => {
    const answer = await send('POST', crds, loadEverynodeCrd());
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      metadata: { name: 'daemonsets.everynode.dev', generation: 1 },
      spec: { conversion: { strategy: 'None' } },
      status: {
        acceptedNames: { kind: 'DaemonSet', plural: 'daemonsets', shortNames: ['eds'] },
        conditions: [
          { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' },
          { type: 'Established', status: 'True', reason: 'InitialNamesAccepted' },
        ],
        storedVersions: ['v1'],
      },
    });
    expect((await send('GET', `${crds}/daemonsets.everynode.dev`)).status).toBe(200);
    expect((await send('DELETE', `${crds}/daemonsets.everynode.dev`)).status).toBe(200);
  });
});

describe('discovery, OpenAPI and tables of the new kinds', () => {
  it('lists SelfSubjectAccessReview as create-only, cluster-scoped', () => {
    expect(apiResourceList('authorization.k8s.io', 'v1')?.resources).toEqual([
      expect.objectContaining({ name: 'selfsubjectaccessreviews', namespaced: false, verbs: ['create'] }),
    ]);
  });

  it('lists the four RBAC kinds and CRDs with their short names', () => {
    expect(
      apiResourceList('rbac.authorization.k8s.io', 'v1')?.resources.map((r) => [r.name, r.namespaced]),
    ).toEqual([
      ['clusterrolebindings', false],
      ['clusterroles', false],
      ['rolebindings', true],
      ['roles', true],
    ]);
    expect(apiResourceList('apiextensions.k8s.io', 'v1')?.resources[0]).toMatchObject({
      name: 'customresourcedefinitions',
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
    });
  });

  it('publishes only POST for SelfSubjectAccessReview, in v3 and v2', () => {
    const v3 = openApiV3Document('apis/authorization.k8s.io/v1') as { paths: Record<string, object> };
    expect(Object.keys(v3.paths)).toEqual(['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
    expect(Object.keys(v3.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'] ?? {})).toEqual([
      'post',
    ]);
    const v2 = openApiV2Document() as { paths: Record<string, object>; definitions: Record<string, object> };
    expect(Object.keys(v2.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'] ?? {})).toEqual([
      'post',
      'parameters',
    ]);
    expect(v2.definitions['io.k8s.api.authorization.v1.SelfSubjectAccessReviewList']).toBeUndefined();
    expect(v2.definitions['io.k8s.api.rbac.v1.ClusterRoleList']).toBeDefined();
  });

  it('publishes the CRD schema with JSONSchemaProps typeless where upstream is (JSON, OrBool)', () => {
    const v2 = openApiV2Document() as {
      definitions: Record<string, { properties?: Record<string, object> }>;
    };
    const props =
      v2.definitions['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps']?.properties;
    expect(props?.additionalProperties).toEqual({});
    expect(props?.properties).toEqual({
      type: 'object',
      additionalProperties: {
        $ref: '#/definitions/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps',
      },
    });
  });

  it('prints bindings as kubectl shows them: Kind/name of the role, then users, groups, service accounts', () => {
    const binding = aClusterRoleBinding(
      'b',
      'view',
      userSubject('u1'),
      groupSubject('g1'),
      userSubject('u2'),
      serviceAccountSubject('sa', 'ns'),
    ) as unknown as KubeObject;
    const now = new Date('2026-01-01T00:10:00Z');
    const table = toTable(
      'rbac.authorization.k8s.io/clusterrolebindings',
      [
        {
          ...binding,
          metadata: { ...binding.metadata, creationTimestamp: '2026-01-01T00:00:00Z' as unknown as Date },
        },
      ],
      { now },
    );
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Role',
      'Age',
      'Users',
      'Groups',
      'ServiceAccounts',
    ]);
    expect(table.rows[0]?.cells).toEqual(['b', 'ClusterRole/view', '10m', 'u1, u2', 'g1', 'ns/sa']);
  });
});
