import { afterEach, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import type { AccessControl } from '../../../lib/sim/auth/access-control.ts';
import { unauthorized } from '../../../lib/sim/auth/access-denied.ts';
import type { RequestAttributes } from '../../../lib/sim/auth/request-attributes.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';

/** An API server whose access control lets only `allow` through and records what it was asked. */
async function serverWith(allow: (attributes: Readonly<RequestAttributes>) => boolean) {
  const asked: RequestAttributes[] = [];
  const access: AccessControl = {
    authenticate: (req) => {
      if (req.headers.authorization === 'Bearer bad') throw unauthorized();
      return { name: 'alice', groups: ['dev', 'system:authenticated'] };
    },
    authorize: (attributes) => {
      asked.push(attributes);
      return allow(attributes) ? { allowed: true } : { allowed: false, reason: 'no rule says so' };
    },
  };
  const server = createApiServer(new ClusterStore(), { access });
  const url = await server.listen();
  return { url, asked, close: () => server.close() };
}

describe('access control of the simulated API server', () => {
  let close: () => Promise<void> = async () => {};
  afterEach(async () => close());

  const cases = [
    {
      name: 'a list in a namespace',
      path: '/api/v1/namespaces/default/pods',
      message:
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": no rule says so',
      details: { kind: 'pods' },
    },
    {
      name: 'a get of one object at the cluster scope',
      path: '/apis/apps/v1/controllerrevisions',
      message:
        'controllerrevisions.apps is forbidden: User "alice" cannot list resource "controllerrevisions" in API group "apps" at the cluster scope: no rule says so',
      details: { group: 'apps', kind: 'controllerrevisions' },
    },
    {
      name: 'a subresource of a named object',
      path: '/api/v1/namespaces/default/pods/p1/status',
      message:
        'pods "p1" is forbidden: User "alice" cannot get resource "pods/status" in API group "" in the namespace "default": no rule says so',
      details: { name: 'p1', kind: 'pods' },
    },
    {
      name: 'a path',
      path: '/version',
      message: 'forbidden: User "alice" cannot get path "/version": no rule says so',
      details: {},
    },
  ];

  it.each(cases)('answers 403 worded as kube-apiserver for $name', async ({ path, message, details }) => {
    const server = await serverWith(() => false);
    close = server.close;
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message,
      details,
    });
  });

  it('asks with the attributes upstream derives: a watch of one name is about that object', async () => {
    const server = await serverWith(() => true);
    close = server.close;
    const response = await fetch(
      `${server.url}/api/v1/namespaces/kube-system/pods?watch=1&fieldSelector=metadata.name%3Dp2&timeoutSeconds=1`,
    );
    await response.text();
    expect(server.asked.at(-1)).toMatchObject({
      user: { name: 'alice' },
      verb: 'watch',
      resourceRequest: true,
      apiGroup: '',
      resource: 'pods',
      namespace: 'kube-system',
      name: 'p2',
    });
  });

  it('answers 401 to credentials it cannot authenticate, before any authorization', async () => {
    const server = await serverWith(() => true);
    close = server.close;
    const response = await fetch(`${server.url}/api/v1/nodes`, { headers: { authorization: 'Bearer bad' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'Unauthorized', code: 401 });
    expect(server.asked).toEqual([]);
  });
});
