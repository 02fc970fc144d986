import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generatedNode } from '../../../lib/sim/sim-nodes.ts';
import { findKubectl, useKubectlSim } from '../../support/kubectl-harness.ts';
import { pollUntil } from '../../support/test-daemon-controller.ts';

const binary = findKubectl();

/** An unbound pod for the scheduler, one container requesting `requests`, optionally held to `host`. */
function aPod(name: string, requests: Record<string, string>, host?: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(host ? { nodeSelector: { 'kubernetes.io/hostname': host } } : {}),
      containers: [{ name: 'app', image: 'busybox:1.36', resources: { requests } }],
    },
  });
}

// node-00001 and node-00003 are m6i.large (1930m cpu allocatable), node-00002 an m6i.2xlarge.
const nodes = [1, 2, 3].map((i) => generatedNode(i));

describe.runIf(binary)('NodeResourcesFit on the simulated cluster, through kubectl', () => {
  const sim = useKubectlSim(binary, { nodes, timing: { timeScale: 0.01 } });
  const { ok } = sim;
  const read = (name: string) => sim.core.readNamespacedPod({ name, namespace: 'default' });
  const scheduled = (pod: V1Pod) => pod.status?.conditions?.find((c) => c.type === 'PodScheduled');

  it('reports each node size of its instance type', async () => {
    const columns =
      'custom-columns=NAME:.metadata.name,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,CPU:.status.allocatable.cpu,PODS:.status.allocatable.pods';
    const table = await ok(['get', 'nodes', '-o', columns]);
    expect(table).toMatch(/node-00001\s+m6i\.large\s+1930m\s+29/);
    expect(table).toMatch(/node-00002\s+m6i\.2xlarge\s+7910m\s+58/);
  });

  it('keeps a pod too big Pending with the upstream condition and event, and binds it once room frees', async () => {
    await ok(['apply', '-f', '-'], aPod('hog', { cpu: '1500m' }, 'node-00001'));
    await pollUntil(
      () => read('hog'),
      (p) => p.spec?.nodeName === 'node-00001',
    );
    await ok(['apply', '-f', '-'], aPod('big', { cpu: '1', memory: '1Gi' }, 'node-00001'));
    const message =
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. " +
      'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.';
    const pending = await pollUntil(
      () => read('big'),
      (p) => scheduled(p)?.status === 'False',
    );
    expect(scheduled(pending)).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
    expect(pending.status?.phase).toBe('Pending');

    const yaml = parse(await ok(['get', 'pod', 'big', '-o', 'yaml'])) as V1Pod;
    expect(scheduled(yaml)).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
    const described = await ok(['describe', 'pod', 'big']);
    expect(described).toMatch(/Status:\s+Pending/);
    expect(described).toMatch(/PodScheduled\s+False/);
    expect(described).toMatch(
      /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 1 Insufficient cpu/,
    );

    await ok(['delete', 'pod', 'hog', '--grace-period=0', '--force']);
    const bound = await pollUntil(
      () => read('big'),
      (p) => p.spec?.nodeName === 'node-00001',
    );
    expect(scheduled(bound)?.status).toBe('True');
  });

  it('says every node lacks memory for a pod larger than any of them', async () => {
    await ok(['apply', '-f', '-'], aPod('huge', { memory: '64Gi' }));
    const pending = await pollUntil(
      () => read('huge'),
      (p) => scheduled(p)?.status === 'False',
    );
    expect(scheduled(pending)?.message).toBe(
      '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
    const events = await ok([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=huge,reason=FailedScheduling',
      '-o',
      'jsonpath={.items[*].reportingComponent}',
    ]);
    expect(events.trim()).toBe('default-scheduler');
  });
});
