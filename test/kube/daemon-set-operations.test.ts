import { describe, expect, it } from 'vitest';
import { lastRequestOf, useTinyApiServer } from './tiny-api-server.ts';
import { tinyKubePort } from './tiny-kube-port.ts';

const server = useTinyApiServer();

const lastRequest = () => lastRequestOf(server);

describe('managed kinds', () => {
  const raw = {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'ds',
      namespace: 'ns',
      resourceVersion: '4',
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: {
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, partition: 2, paused: true },
      },
      burstReplicas: 50,
    },
    status: { desiredNumberScheduled: 1 },
  };

  it.each([
    { kind: 'everynode.dev/v1' as const, path: '/apis/everynode.dev/v1/namespaces/ns/daemonsets/ds' },
    { kind: 'apps/v1' as const, path: '/apis/apps/v1/namespaces/ns/daemonsets/ds' },
  ])('reads a $kind DaemonSet from its own resource', async ({ kind, path }) => {
    server.answer = { status: 200, body: { ...raw, apiVersion: kind } };
    const { port } = tinyKubePort(server.url, { managedKind: kind });
    const ds = await port.getDaemonSet('ns', 'ds');
    expect(lastRequest().path).toBe(path);
    expect(ds?.apiVersion).toBe(kind);
    expect(ds?.metadata?.creationTimestamp).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('keeps the extension fields of an everynode.dev/v1 DaemonSet both ways', async () => {
    server.answer = { status: 200, body: raw };
    const { port } = tinyKubePort(server.url, { managedKind: 'everynode.dev/v1' });
    const ds = await port.getDaemonSet('ns', 'ds');
    expect(ds?.spec?.updateStrategy?.rollingUpdate).toMatchObject({
      partition: 2,
      paused: true,
      maxUnavailable: 1,
    });
    expect(ds?.spec).toMatchObject({ burstReplicas: 50 });
    if (!ds) throw new Error('no DaemonSet');
    await port.updateDaemonSetStatus({
      ...ds,
      status: { ...ds.status, numberReady: 1 } as NonNullable<typeof ds.status>,
    });
    const sent = JSON.parse(lastRequest().body);
    expect(lastRequest()).toMatchObject({
      method: 'PUT',
      path: '/apis/everynode.dev/v1/namespaces/ns/daemonsets/ds/status',
    });
    expect(sent.spec.updateStrategy.rollingUpdate).toEqual({ maxUnavailable: 1, partition: 2, paused: true });
    expect(sent.metadata).toMatchObject({
      resourceVersion: '4',
      creationTimestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(sent.status).toEqual({ desiredNumberScheduled: 1, numberReady: 1 });
  });

  it('lists DaemonSets of all namespaces with their kind', async () => {
    server.answer = {
      status: 200,
      body: {
        items: [{ ...raw, apiVersion: undefined, kind: undefined }],
        metadata: { resourceVersion: '8' },
      },
    };
    const { port } = tinyKubePort(server.url, { managedKind: 'everynode.dev/v1' });
    const list = await port.listDaemonSets({ labelSelector: 'team=a' });
    expect(lastRequest().path).toBe('/apis/everynode.dev/v1/daemonsets');
    expect(list.resourceVersion).toBe('8');
    expect(list.items[0]).toMatchObject({
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      spec: { burstReplicas: 50 },
    });
  });
});
