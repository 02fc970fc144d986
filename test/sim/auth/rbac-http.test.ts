import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aUser } from '../../support/rbac-builders.ts';
import { applyManifest, type RbacSim, startRbacSim } from '../../support/rbac-sim.ts';

/** Two everynode functions: mapped by the EKS access entries to the groups infra/k8s/rbac.yaml binds. */
const users = {
  relay: aUser('everynode-relay', 'everynode:relay'),
  reconcile: aUser('everynode-fn', 'everynode:reconcile'),
  nobody: aUser('nobody'),
  anonymous: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
};

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p1' },
  spec: { containers: [{ name: 'c', image: 'i' }] },
};
const mergePatch = { 'content-type': 'application/merge-patch+json' };

interface Case {
  readonly name: string;
  readonly user: keyof typeof users;
  readonly method?: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The answer's status code (anything but 403 shows the request was authorized). */
  readonly status: number;
  /** The 403 message, exactly as kube-apiserver words it. */
  readonly message?: string;
}

const cases: Case[] = [
  { name: 'the reconciler lists nodes', user: 'reconcile', path: '/api/v1/nodes', status: 200 },
  {
    name: 'the relay watches pods everywhere',
    user: 'relay',
    path: '/api/v1/pods?watch=1&timeoutSeconds=1',
    status: 200,
  },
  {
    name: 'the relay reads kube-system (its resourceNames)',
    user: 'relay',
    path: '/api/v1/namespaces/kube-system',
    status: 200,
  },
  {
    name: 'the relay reads no other namespace',
    user: 'relay',
    path: '/api/v1/namespaces/default',
    status: 403,
    message:
      'namespaces "default" is forbidden: User "everynode-relay" cannot get resource "namespaces" in API group "" at the cluster scope',
  },
  {
    name: 'the relay cannot list namespaces: resourceNames never cover a list',
    user: 'relay',
    path: '/api/v1/namespaces',
    status: 403,
    message:
      'namespaces is forbidden: User "everynode-relay" cannot list resource "namespaces" in API group "" at the cluster scope',
  },
  {
    name: 'the reconciler creates pods',
    user: 'reconcile',
    method: 'POST',
    path: '/api/v1/namespaces/default/pods',
    body: pod,
    status: 201,
  },
  {
    name: 'the reconciler cannot update pods',
    user: 'reconcile',
    method: 'PUT',
    path: '/api/v1/namespaces/default/pods/p1',
    body: pod,
    status: 403,
    message:
      'pods "p1" is forbidden: User "everynode-fn" cannot update resource "pods" in API group "" in the namespace "default"',
  },
  {
    name: 'the reconciler cannot delete nodes',
    user: 'reconcile',
    method: 'DELETE',
    path: '/api/v1/nodes/n1',
    status: 403,
    message:
      'nodes "n1" is forbidden: User "everynode-fn" cannot delete resource "nodes" in API group "" at the cluster scope',
  },
  {
    name: 'the reconciler replaces everynode DaemonSet status (authorized; the object is missing)',
    user: 'reconcile',
    method: 'PUT',
    path: '/apis/everynode.dev/v1/namespaces/default/daemonsets/d/status',
    body: {
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd', namespace: 'default' },
    },
    status: 404,
  },
  {
    name: 'the reconciler cannot patch everynode DaemonSet status: it only replaces it',
    user: 'reconcile',
    method: 'PATCH',
    path: '/apis/everynode.dev/v1/namespaces/default/daemonsets/d/status',
    body: {},
    headers: mergePatch,
    status: 403,
    message:
      'daemonsets.everynode.dev "d" is forbidden: User "everynode-fn" cannot patch resource "daemonsets/status" in API group "everynode.dev" in the namespace "default"',
  },
  {
    name: 'the reconciler cannot patch the DaemonSet itself',
    user: 'reconcile',
    method: 'PATCH',
    path: '/apis/everynode.dev/v1/namespaces/default/daemonsets/d',
    body: {},
    headers: mergePatch,
    status: 403,
    message:
      'daemonsets.everynode.dev "d" is forbidden: User "everynode-fn" cannot patch resource "daemonsets" in API group "everynode.dev" in the namespace "default"',
  },
  {
    name: 'the reconciler writes ControllerRevisions',
    user: 'reconcile',
    method: 'DELETE',
    path: '/apis/apps/v1/namespaces/default/controllerrevisions/r',
    status: 404,
  },
  {
    name: 'every authenticated user discovers the API (system:discovery)',
    user: 'nobody',
    path: '/apis',
    status: 200,
  },
  {
    name: 'every authenticated user reads the OpenAPI (system:discovery)',
    user: 'nobody',
    path: '/openapi/v3',
    status: 200,
  },
  {
    name: 'an authenticated user without bindings lists nothing',
    user: 'nobody',
    path: '/api/v1/nodes',
    status: 403,
    message:
      'nodes is forbidden: User "nobody" cannot list resource "nodes" in API group "" at the cluster scope',
  },
  {
    name: 'a path no role grants',
    user: 'relay',
    path: '/logs',
    status: 403,
    message: 'forbidden: User "everynode-relay" cannot get path "/logs"',
  },
  {
    name: 'anyone reads /version (system:public-info-viewer)',
    user: 'anonymous',
    path: '/version',
    status: 200,
  },
  {
    name: 'anyone reads /healthz (system:public-info-viewer)',
    user: 'anonymous',
    path: '/healthz',
    status: 200,
  },
  {
    name: 'the unauthenticated do not discover the API',
    user: 'anonymous',
    path: '/apis',
    status: 403,
    message: 'forbidden: User "system:anonymous" cannot get path "/apis"',
  },
];

/** Sends a request as `user` to `sim`; resolves with the status and the parsed JSON body. */
async function send(sim: RbacSim, user: string | undefined, c: Partial<Case> & { path: string }) {
  const response = await fetch(`${sim.url}${c.path}`, {
    method: c.method ?? 'GET',
    headers: { ...(user ? { 'x-sim-user': user } : {}), 'content-type': 'application/json', ...c.headers },
    ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

describe('--authorization-mode RBAC over HTTP, with infra/k8s/rbac.yaml applied', () => {
  let sim: RbacSim;
  beforeAll(async () => {
    sim = await startRbacSim(users);
    applyManifest(sim.store, 'infra/k8s/rbac.yaml');
  });
  afterAll(() => sim.close());

  it.each(cases)('$name', async ({ user, status, message, ...request }) => {
    const answer = await send(sim, user, request);
    expect(answer.status).toBe(status);
    if (message !== undefined) {
      expect(answer.body).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden', message });
    }
  });

  it('lets system:masters do anything without a binding of its own (404: authorized, no such node)', async () => {
    expect((await send(sim, undefined, { method: 'DELETE', path: '/api/v1/nodes/n1' })).status).toBe(404);
  });

  it('answers a SelfSubjectAccessReview for the requesting user, with the RBAC reason', async () => {
    const review = (verb: string, resource: string, namespace = '') => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, resource, namespace } },
    });
    const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const allowed = await send(sim, 'reconcile', {
      method: 'POST',
      path,
      body: review('create', 'pods', 'default'),
    });
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } },
      status: {
        allowed: true,
        reason:
          'RBAC: allowed by ClusterRoleBinding "everynode-reconcile" of ClusterRole "everynode-reconcile" to Group "everynode:reconcile"',
      },
    });
    const deniedReview = await send(sim, 'reconcile', {
      method: 'POST',
      path,
      body: review('delete', 'nodes'),
    });
    expect(deniedReview.body.status).toEqual({ allowed: false });
  });

  it('refuses a SelfSubjectAccessReview asking about nothing with upstream 422', async () => {
    const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const answer = await send(sim, 'nobody', { method: 'POST', path, body: { spec: {} } });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  it('impersonates for those allowed to (system:masters) and refuses others with upstream 403', async () => {
    const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const body = { spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } } };
    const headers = { 'impersonate-user': 'someone', 'impersonate-group': 'everynode:relay' };
    const asAdmin = await send(sim, undefined, { method: 'POST', path, body, headers });
    expect(asAdmin.body.status).toMatchObject({ allowed: true });
    const asNobody = await send(sim, 'nobody', { method: 'POST', path, body, headers });
    expect(asNobody.status).toBe(403);
    expect(asNobody.body.message).toBe(
      'users "someone" is forbidden: User "nobody" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });
});

describe('without an authorization mode', () => {
  let sim: RbacSim;
  beforeAll(async () => {
    sim = await startRbacSim(users, {});
  });
  afterAll(() => sim.close());

  it('serves every request, as the simulator always has (404: authorized, no such node)', async () => {
    expect((await send(sim, 'nobody', { method: 'DELETE', path: '/api/v1/nodes/n1' })).status).toBe(404);
    expect((await send(sim, 'anonymous', { path: '/api/v1/nodes' })).status).toBe(200);
  });
});
