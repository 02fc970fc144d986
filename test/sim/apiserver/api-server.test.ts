import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  type V1DaemonSet,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { RequestCounters } from '../../../lib/sim/counters.ts';
import { kubeconfigFor } from '../../../lib/sim/kubeconfig.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { newDaemonSet, newPod } from '../../support/store-test-helpers.ts';

const store = new ClusterStore();
const counters = new RequestCounters();
const server = createApiServer(store, { counters, bookmarkIntervalMs: 100 });
const kc = new KubeConfig();
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;

beforeAll(async () => {
  kc.loadFromString(kubeconfigFor(await server.listen()));
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
});
afterAll(() => server.close());

/** The HTTP status and Status body of a failed client call. */
async function failure(
  call: Promise<unknown>,
): Promise<{ code: number; body: { reason?: string; details?: { causes?: { field?: string }[] } } }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return { code: error.code, body: JSON.parse(String(error.body)) };
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Collects watch events until `count` arrived or the stream ends. */
function watchEvents(
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  count: number,
): Promise<
  { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number } }[]
> {
  return new Promise((resolve, reject) => {
    const events: { type: string; object: never }[] = [];
    let controller: AbortController | undefined;
    const finish = () => {
      controller?.abort();
      resolve(events);
    };
    new Watch(kc)
      .watch(
        path,
        query,
        (type, object) => {
          events.push({ type, object: object as never });
          if (events.length >= count) finish();
        },
        () => resolve(events),
      )
      .then((c) => {
        controller = c;
        if (events.length >= count) c.abort();
      }, reject);
  });
}

describe('simulated API server through @kubernetes/client-node', () => {
  it('creates, reads and lists pods with selectors and a list resourceVersion', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: newPod('web-1', { labels: { app: 'web' }, nodeName: 'n1' }) as V1Pod,
    });
    expect(created.status?.phase).toBe('Pending');
    const read = await core.readNamespacedPod({ namespace: 'default', name: 'web-1' });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const list = await core.listPodForAllNamespaces({
      fieldSelector: 'spec.nodeName=n1',
      labelSelector: 'app=web',
    });
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['web-1']);
    expect(Number(list.metadata?.resourceVersion)).toBe(store.resourceVersion);
  });

  it.each([
    {
      name: '404 for a missing pod',
      call: () => core.readNamespacedPod({ namespace: 'default', name: 'nope' }),
      code: 404,
      reason: 'NotFound',
    },
    {
      name: '409 for a duplicate',
      call: () => core.createNamespacedPod({ namespace: 'default', body: newPod('web-1') as V1Pod }),
      code: 409,
      reason: 'AlreadyExists',
    },
    {
      name: '422 naming the field of an invalid DaemonSet',
      call: () => {
        const ds = newDaemonSet('bad') as unknown as V1DaemonSet;
        if (ds.spec) ds.spec.selector = { matchLabels: { app: 'other' } };
        return apps.createNamespacedDaemonSet({ namespace: 'default', body: ds });
      },
      code: 422,
      reason: 'Invalid',
      field: 'spec.template.metadata.labels',
    },
  ])('answers $name', async ({ call, code, reason, field }) => {
    const result = await failure(call());
    expect([result.code, result.body.reason]).toEqual([code, reason]);
    if (field) expect(result.body.details?.causes?.map((c) => c.field)).toContain(field);
  });

  it('answers 409 Conflict to a stale update', async () => {
    const ds = await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: newDaemonSet('stale') as unknown as V1DaemonSet,
    });
    await apps.patchNamespacedDaemonSet({
      namespace: 'default',
      name: 'stale',
      body: [{ op: 'add', path: '/spec/minReadySeconds', value: 2 }],
    });
    const result = await failure(
      apps.replaceNamespacedDaemonSet({ namespace: 'default', name: 'stale', body: ds }),
    );
    expect([result.code, result.body.reason]).toEqual([409, 'Conflict']);
  });

  it('pages a list with limit and continue at one resourceVersion', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      await core.createNamespacedPod({
        namespace: 'default',
        body: newPod(name, { labels: { page: 'yes' } }) as V1Pod,
      });
    const first = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'page=yes', limit: 2 });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'page-c' });
    const second = await core.listNamespacedPod({
      namespace: 'default',
      labelSelector: 'page=yes',
      limit: 2,
      _continue: first.metadata?._continue,
    });
    expect(first.items.map((p) => p.metadata?.name)).toEqual(['page-a', 'page-b']);
    expect(second.items.map((p) => p.metadata?.name)).toEqual(['page-c']);
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });

  it('serves custom resources of everynode.dev', async () => {
    const body = { ...newDaemonSet('eds-1'), apiVersion: 'everynode.dev/v1' };
    const created = (await custom.createNamespacedCustomObject({
      group: 'everynode.dev',
      version: 'v1',
      namespace: 'default',
      plural: 'daemonsets',
      body,
    })) as { metadata: { generation: number } };
    expect(created.metadata.generation).toBe(1);
  });
});

describe('watch through @kubernetes/client-node', () => {
  // An unbound pod is deleted as the registry does it: a graceful-deletion write with grace 0
  // (MODIFIED, deletionTimestamp set), then the removal (DELETED).
  it('sends changes after the given resourceVersion, including DELETED with a new resourceVersion', async () => {
    const from = String(store.resourceVersion);
    await core.createNamespacedPod({ namespace: 'default', body: newPod('w-1') as V1Pod });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'w-1' });
    const events = await watchEvents(
      '/api/v1/namespaces/default/pods',
      { resourceVersion: from, fieldSelector: 'metadata.name=w-1' },
      3,
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(Number(events[2]?.object.metadata?.resourceVersion)).toBe(store.resourceVersion);
  });

  it('sends bookmarks when allowed', async () => {
    const events = await watchEvents(
      '/api/v1/nodes',
      { resourceVersion: String(store.resourceVersion), allowWatchBookmarks: true },
      1,
    );
    expect(events[0]?.type).toBe('BOOKMARK');
  });

  it('answers ERROR 410 for a resourceVersion older than the window, then ends the stream', async () => {
    const small = new ClusterStore({ watchWindow: 1 });
    const smallServer = createApiServer(small);
    const config = new KubeConfig();
    config.loadFromString(kubeconfigFor(await smallServer.listen()));
    const start = String(small.resourceVersion);
    for (const name of ['a', 'b', 'c']) small.create('pods', newPod(name));
    const events = await new Promise<{ type: string; code?: number }[]>((resolve) => {
      const seen: { type: string; code?: number }[] = [];
      void new Watch(config).watch(
        '/api/v1/pods',
        { resourceVersion: start },
        (type, obj) => seen.push({ type, code: (obj as { code?: number }).code }),
        () => resolve(seen),
      );
    });
    await smallServer.close();
    expect(events).toEqual([{ type: 'ERROR', code: 410 }]);
  });

  it('feeds an informer (list then watch)', async () => {
    const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () =>
      core.listNamespacedPod({ namespace: 'default' }),
    );
    const added: string[] = [];
    informer.on('add', (pod) => added.push(pod.metadata?.name ?? ''));
    await informer.start();
    await core.createNamespacedPod({ namespace: 'default', body: newPod('informed') as V1Pod });
    await expect.poll(() => added.includes('informed') && added.includes('web-1')).toBe(true);
    await informer.stop();
  });

  it('counts requests by verb and resource', () => {
    expect(counters.total({ verb: 'create', resource: 'pods' })).toBeGreaterThan(0);
    expect(counters.total({ verb: 'watch', resource: 'pods' })).toBeGreaterThan(0);
    expect(counters.total({ userAgent: /./ })).toBe(counters.total());
  });
});
