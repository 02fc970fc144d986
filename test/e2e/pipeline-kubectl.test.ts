import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';
import { seedPlacement } from '../support/seed-placement.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}.yaml`, import.meta.url));

const on = (world: PipelineWorld, node: string) => world.placement().filter((p) => p.endsWith(`@${node}`));

/** Nodes with a ready, running, not terminating demo pod. */
function readyDemoNodes(world: PipelineWorld): number {
  const pods = world.sim.store
    .list('pods', { namespace: 'kiada' })
    .filter((p) => p.metadata.name?.startsWith('demo-'));
  const ready = pods.filter((p) => {
    const status = p.status as { conditions?: Array<{ type: string; status: string }> } | undefined;
    return (
      !p.metadata.deletionTimestamp &&
      status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
    );
  });
  return new Set(ready.map((p) => (p.spec as { nodeName?: string }).nodeName)).size;
}

describe.runIf(kubectlBinary)('the local pipeline driven with kubectl (apps/v1)', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true });
    await world.kubectl(['create', 'namespace', 'kiada']);
  });
  afterAll(async () => world.stop());

  it('places the seed DaemonSets on exactly the right nodes', async () => {
    await world.kubectl(['apply', '-f', fixture('fluentd-elasticsearch'), '-f', fixture('demo')]);
    await world.until(
      'the seed DaemonSets are placed',
      () => world.placement().join() === seedPlacement.join(),
    );
    expect(world.placement()).toEqual(seedPlacement);
  });

  it('runs daemon pods on a node as soon as it joins, and removes them when it leaves', async () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'joined-1', labels: { 'kubernetes.io/os': 'linux' } },
    };
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(node));
    await world.until('joined-1 runs both daemon pods', () => on(world, 'joined-1').length === 2);
    expect(on(world, 'joined-1')).toEqual([
      'kiada/demo@joined-1',
      'kube-system/fluentd-elasticsearch@joined-1',
    ]);
    await world.kubectl(['delete', 'node', 'joined-1']);
    await world.until('joined-1 runs nothing', () => on(world, 'joined-1').length === 0);
  });

  it('follows taints and labels', async () => {
    await world.kubectl(['apply', '-f', fixture('node-selector-ds')]);
    await world.until('ssd-monitor runs on worker-ssd', () =>
      world.placement().includes('kiada/ssd-monitor@worker-ssd'),
    );
    await world.kubectl(['label', 'node', 'worker-1', 'disk=ssd']);
    await world.until('ssd-monitor runs on worker-1', () =>
      world.placement().includes('kiada/ssd-monitor@worker-1'),
    );
    await world.kubectl(['label', 'node', 'worker-ssd', 'disk-']);
    await world.until(
      'ssd-monitor left worker-ssd',
      () => !world.placement().includes('kiada/ssd-monitor@worker-ssd'),
    );
    await world.kubectl(['taint', 'node', 'worker-1', 'dedicated=infra:NoExecute']);
    await world.until('worker-1 runs nothing', () => on(world, 'worker-1').length === 0);
    await world.kubectl(['taint', 'node', 'worker-1', 'dedicated=infra:NoExecute-']);
    await world.until('worker-1 runs its three pods again', () => on(world, 'worker-1').length === 3);
    expect(on(world, 'worker-1')).toEqual([
      'kiada/demo@worker-1',
      'kiada/ssd-monitor@worker-1',
      'kube-system/fluentd-elasticsearch@worker-1',
    ]);
  });

  it('rolls out an image change within maxUnavailable 1, and kubectl rollout status sees it complete', async () => {
    await world.until('demo is ready on its 3 nodes', () => readyDemoNodes(world) === 3);
    let worstUnavailable = 0;
    const unsubscribe = world.sim.store.subscribe(() => {
      worstUnavailable = Math.max(worstUnavailable, 3 - readyDemoNodes(world));
    });
    try {
      await world.kubectl(['-n', 'kiada', 'set', 'image', 'ds/demo', 'demo=busybox:1.37']);
      const status = await world.kubectl(['-n', 'kiada', 'rollout', 'status', 'ds/demo', '--timeout=60s']);
      expect(status).toMatch(/successfully rolled out/);
    } finally {
      unsubscribe();
    }
    const demo = world.pods('kiada').filter((p) => p.owner === 'demo');
    expect(demo.map((p) => p.image)).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
    expect(worstUnavailable).toBeLessThanOrEqual(1);
  }, 90_000);
});
