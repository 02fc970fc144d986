import { describe, expect, it } from 'vitest';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';
import { lastRequestOf, startTinyApiServer, useTinyApiServer } from './tiny-api-server.ts';
import { tinyKubePort } from './tiny-kube-port.ts';

const server = useTinyApiServer();

const lastRequest = () => lastRequestOf(server);
const notOlder = { notOlderThan: '42', limit: 1 };

describe('connections', () => {
  it('sends several sequential requests over one keep-alive TCP connection', async () => {
    const fresh = await startTinyApiServer();
    try {
      fresh.answer = { status: 200, body: aNode('n1') };
      const { port } = tinyKubePort(fresh.url);
      for (let i = 0; i < 5; i += 1) await port.getNode('n1');
      expect(fresh.requests).toHaveLength(5);
      expect(fresh.connections).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('authenticates with the kubeconfig token and names itself', async () => {
    server.answer = { status: 200, body: { items: [], metadata: { resourceVersion: '9' } } };
    const { port } = tinyKubePort(server.url);
    await expect(port.listNodes()).resolves.toEqual({ items: [], resourceVersion: '9' });
    expect(lastRequest().headers).toMatchObject({
      authorization: 'Bearer test-token',
      'user-agent': 'everynode/test',
    });
  });
});

describe('requests', () => {
  it('reads from the watch cache (resourceVersion=0) only when a stale read is allowed', async () => {
    server.answer = {
      status: 200,
      body: { items: [aPod('p1')], metadata: { resourceVersion: '3', continue: 'next' } },
    };
    const { port } = tinyKubePort(server.url);
    const list = await port.listPods({
      namespace: 'ns',
      fieldSelector: 'spec.nodeName=n1',
      allowStale: true,
    });
    expect(lastRequest().path).toBe('/api/v1/namespaces/ns/pods');
    expect(lastRequest().query.get('resourceVersion')).toBe('0');
    expect(lastRequest().query.get('fieldSelector')).toBe('spec.nodeName=n1');
    expect(list).toMatchObject({
      resourceVersion: '3',
      continue: 'next',
      items: [{ apiVersion: 'v1', kind: 'Pod' }],
    });
    server.answer = { status: 200, body: aNode('n1') };
    await port.getNode('n1', { allowStale: true });
    expect(lastRequest().query.get('resourceVersion')).toBe('0');
    await port.getNode('n1');
    expect(lastRequest().query.has('resourceVersion')).toBe(false);
  });

  it.each([
    {
      name: 'nodes',
      managedKind: 'apps/v1',
      list: (p: KubePort) => p.listNodes(notOlder),
      path: '/api/v1/nodes',
    },
    {
      name: 'pods in all namespaces',
      managedKind: 'apps/v1',
      list: (p: KubePort) => p.listPods({ ...notOlder, labelSelector: 'a' }),
      path: '/api/v1/pods',
    },
    {
      name: 'pods in a namespace',
      managedKind: 'apps/v1',
      list: (p: KubePort) => p.listPods({ ...notOlder, namespace: 'ns' }),
      path: '/api/v1/namespaces/ns/pods',
    },
    {
      name: 'apps/v1 DaemonSets',
      managedKind: 'apps/v1',
      list: (p: KubePort) => p.listDaemonSets(notOlder),
      path: '/apis/apps/v1/daemonsets',
    },
    {
      name: 'everynode.dev/v1 DaemonSets',
      managedKind: 'everynode.dev/v1',
      list: (p: KubePort) => p.listDaemonSets(notOlder),
      path: '/apis/everynode.dev/v1/daemonsets',
    },
  ] as const)('lists $name not older than a version (resourceVersionMatch=NotOlderThan)', async (c) => {
    server.answer = { status: 200, body: { items: [], metadata: { resourceVersion: '60' } } };
    const { port } = tinyKubePort(server.url, { managedKind: c.managedKind });
    await c.list(port);
    expect(lastRequest().path).toBe(c.path);
    expect(Object.fromEntries(lastRequest().query)).toMatchObject({
      resourceVersion: '42',
      resourceVersionMatch: 'NotOlderThan',
      limit: '1',
    });
  });

  it('reads the cluster identity from the kube-system namespace, with the server URL', async () => {
    server.answer = { status: 200, body: { metadata: { name: 'kube-system', uid: 'ks-uid' } } };
    const { port } = tinyKubePort(server.url);
    await expect(port.getClusterIdentity()).resolves.toEqual({ server: server.url, kubeSystemUid: 'ks-uid' });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/kube-system' });
  });

  it('deletes a pod with uid and resourceVersion preconditions', async () => {
    const { port } = tinyKubePort(server.url);
    await port.deletePod(
      { namespace: 'ns', name: 'p1', uid: 'u1', resourceVersion: '7' },
      { propagationPolicy: 'Background' },
    );
    expect(lastRequest()).toMatchObject({ method: 'DELETE', path: '/api/v1/namespaces/ns/pods/p1' });
    expect(JSON.parse(lastRequest().body)).toEqual({
      preconditions: { uid: 'u1', resourceVersion: '7' },
      propagationPolicy: 'Background',
    });
  });

  it('patches ownerReferences with a merge patch guarded by uid and resourceVersion', async () => {
    server.answer = { status: 200, body: aPod('p1') };
    const { port } = tinyKubePort(server.url);
    const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds-uid', controller: true };
    await port.patchPodOwnerReferences({
      namespace: 'ns',
      name: 'p1',
      uid: 'u1',
      resourceVersion: '7',
      ownerReferences: [owner],
    });
    expect(lastRequest()).toMatchObject({
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(JSON.parse(lastRequest().body)).toEqual({
      metadata: { uid: 'u1', resourceVersion: '7', ownerReferences: [owner] },
    });
  });

  it('counts every request by verb', async () => {
    const { port, counter } = tinyKubePort(server.url);
    server.answer = { status: 200, body: { items: [], metadata: {} } };
    await port.listNodes();
    await port.listPods();
    await port.listControllerRevisions('ns');
    server.answer = { status: 200, body: aNode('n1') };
    await port.getNode('n1');
    await port.createPod(aPod('p1'));
    await port.deletePod({ namespace: 'ns', name: 'p1', uid: 'u' });
    await port.patchPodOwnerReferences({
      namespace: 'ns',
      name: 'p1',
      uid: 'u',
      resourceVersion: '1',
      ownerReferences: [],
    });
    await port.updateDaemonSetStatus(aDaemonSet('ds'));
    expect(counter.snapshot()).toEqual({
      get: 1,
      list: 3,
      watch: 0,
      create: 1,
      update: 1,
      patch: 1,
      delete: 1,
      deletecollection: 0,
    });
    expect(counter.total()).toBe(8);
  });
});

describe('request budget', () => {
  it('spaces requests beyond the burst at the configured rate', async () => {
    server.answer = { status: 200, body: aNode('n1') };
    const budget = new RequestBudget({ requestsPerSecond: 20, burst: 2 });
    const { port } = tinyKubePort(server.url, { budget });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => port.getNode('n1')));
    // (6 - 2) / 20 s = 200 ms at least; a little slack for timer granularity.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(server.requests).toHaveLength(6);
  });
});
