import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { aNode } from '../support/builders.ts';
import { conditionOf } from '../support/runtime-harness.ts';

const clusters: SimCluster[] = [];
const dir = mkdtempSync(join(tmpdir(), 'everynode-sim-'));
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(
  options: Parameters<typeof startSimCluster>[0],
): Promise<{ cluster: SimCluster; core: CoreV1Api }> {
  const cluster = await startSimCluster({ timing: { timeScale: 0.001 }, ...options });
  clusters.push(cluster);
  const config = new KubeConfig();
  config.loadFromString(cluster.kubeconfig);
  return { cluster, core: config.makeApiClient(CoreV1Api) };
}

describe('startSimCluster', () => {
  it.each([
    {
      name: 'default: the six seed nodes',
      nodes: undefined,
      expected: ['cordoned-1', 'gpu-dedicated', 'master-1', 'notready-1', 'worker-1', 'worker-ssd'],
    },
    { name: 'nodes: 0 is an empty cluster', nodes: 0, expected: [] },
    { name: 'nodes: 2 takes the first two seed nodes', nodes: 2, expected: ['worker-1', 'worker-ssd'] },
    {
      name: 'nodes: 8 generates node-00001…',
      nodes: 8,
      expected: Array.from({ length: 8 }, (_, i) => `node-0000${i + 1}`),
    },
  ])('$name', async ({ nodes, expected }) => {
    const { core } = await start(nodes === undefined ? {} : { nodes });
    const list = await core.listNode();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(expected);
  });

  it('keeps the seed nodes as the fixture says: notready-1 stays NotReady, the others turn Ready with a version', async () => {
    const { core } = await start({});
    const nodes = await poll(
      () => core.listNode(),
      (list) => list.items.every((n) => n.status?.nodeInfo !== undefined),
    );
    const ready = Object.fromEntries(
      nodes.items.map((n) => [n.metadata?.name, conditionOf(n as never, 'Ready')]),
    );
    expect(ready).toEqual({
      'cordoned-1': 'True',
      'gpu-dedicated': 'True',
      'master-1': 'True',
      'notready-1': 'False',
      'worker-1': 'True',
      'worker-ssd': 'True',
    });
    expect(nodes.items.every((n) => n.status?.nodeInfo?.kubeletVersion === 'v1.33.0')).toBe(true);
  });

  it('accepts node objects from the builders, writes the kubeconfig, and runs pods created over HTTP', async () => {
    const kubeconfigPath = join(dir, 'kubeconfig');
    const { cluster, core } = await start({ nodes: [aNode('n1')], kubeconfigPath });
    expect(readFileSync(kubeconfigPath, 'utf8')).toContain(cluster.url);
    const pod: V1Pod = { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    await core.createNamespacedPod({ namespace: 'default', body: pod });
    const running = await poll(
      async () => core.readNamespacedPod({ namespace: 'default', name: 'web' }),
      (p) => conditionOf(p as never, 'Ready') === 'True',
    );
    expect(running.spec?.nodeName).toBe('n1');
    expect(cluster.counters.total({ verb: 'create', resource: 'pods' })).toBe(1);
  });

  it('node controls act through the store and show over HTTP', async () => {
    const { cluster, core } = await start({ nodes: 1 });
    cluster.nodes.add('extra', { labels: { disk: 'ssd' } });
    cluster.nodes.cordon('worker-1');
    const node = await poll(
      () => core.readNode({ name: 'worker-1' }),
      (n) => (n.spec?.taints ?? []).length === 1,
    );
    expect(node.spec).toMatchObject({
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
    expect((await core.readNode({ name: 'extra' })).metadata?.labels?.disk).toBe('ssd');
  });

  it('stop() closes the server', async () => {
    const cluster = await startSimCluster({ nodes: 0 });
    await cluster.stop();
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
  });
});

async function poll<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
