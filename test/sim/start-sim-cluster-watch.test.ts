import { KubeConfig, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { apisFor } from '../support/test-daemon-controller.ts';

interface Seen {
  type: string;
  name?: string;
  resourceVersion?: string;
  code?: number;
}

/** Watches pods in `default` from `resourceVersion` until `enough(events)`; resolves with what came. */
async function watchPods(
  kubeconfig: string,
  resourceVersion: string,
  enough: (events: Seen[]) => boolean,
): Promise<Seen[]> {
  const config = new KubeConfig();
  config.loadFromString(kubeconfig);
  const events: Seen[] = [];
  return new Promise((resolve, reject) => {
    let controller: AbortController | undefined;
    const timer = setTimeout(() => finish(), 5000);
    const finish = () => {
      clearTimeout(timer);
      controller?.abort();
      resolve(events);
    };
    new Watch(config)
      .watch(
        '/api/v1/namespaces/default/pods',
        { allowWatchBookmarks: true, resourceVersion },
        (type: string, obj: { metadata?: V1ConfigMap['metadata']; code?: number }) => {
          events.push({
            type,
            name: obj.metadata?.name,
            resourceVersion: obj.metadata?.resourceVersion,
            code: obj.code,
          });
          if (enough(events)) finish();
        },
        (error: unknown) =>
          error && !(error instanceof Error && error.name === 'AbortError') ? reject(error) : finish(),
      )
      .then((c) => {
        controller = c;
      }, reject);
  });
}

describe('watch through @kubernetes/client-node', () => {
  let cluster: SimCluster;
  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 0, watchWindow: 20, bookmarkIntervalMs: 50 });
  });
  afterAll(() => cluster.stop());

  const createPod = (name: string) =>
    apisFor(cluster.kubeconfig).core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });

  it('resumes from a bookmark: a new watch from its resourceVersion gets exactly the later changes', async () => {
    await createPod('before');
    const start = String(cluster.store.resourceVersion);
    const first = await watchPods(cluster.kubeconfig, start, (events) =>
      events.some((e) => e.type === 'BOOKMARK'),
    );
    const bookmark = first.find((e) => e.type === 'BOOKMARK');
    expect(bookmark?.resourceVersion).toBeDefined();
    await createPod('after-1');
    await createPod('after-2');
    const resumed = await watchPods(
      cluster.kubeconfig,
      bookmark?.resourceVersion ?? '',
      (events) => events.filter((e) => e.type === 'ADDED').length >= 2,
    );
    // The scheduler marks them Unschedulable (no nodes), so MODIFIED events follow each ADDED.
    expect(resumed.filter((e) => e.type === 'ADDED').map((e) => e.name)).toEqual(['after-1', 'after-2']);
    expect(resumed.some((e) => e.name === 'before')).toBe(false);
  });

  it('gets 410 Gone when the resourceVersion has left the watch window', async () => {
    const old = String(cluster.store.resourceVersion);
    for (let i = 0; i < 25; i++) await createPod(`churn-${i}`);
    const events = await watchPods(cluster.kubeconfig, old, (seen) => seen.some((e) => e.type === 'ERROR'));
    expect(events.find((e) => e.type === 'ERROR')).toMatchObject({ code: 410 });
    expect(events.filter((e) => e.type === 'ADDED')).toEqual([]);
  });
});
