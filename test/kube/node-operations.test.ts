/**
 * The node writes of the node readiness gates (lib/kube/operations/node-operations.ts) through the real
 * adapter against the simulated cluster over HTTP: the taints and marker in one merge patch guarded
 * by resourceVersion, the condition through nodes/status merged by type — as a real API server
 * answers them.
 */
import type { V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { ConflictError } from '../../lib/kube/errors/kube-api-errors.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';

let cluster: SimCluster;
let port: KubePort;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 0, timing: { timeScale: 0.001 } });
  const connection = connectionFromKubeConfig(loadKubeConfig({ yaml: cluster.kubeconfig }));
  port = createKubePort({ connection, userAgent: 'everynode/node-operations-test' });
});
afterAll(() => cluster.stop());

const gate = { key: 'everynode.dev/not-ready', effect: 'NoSchedule' };
const other = { key: 'example.com/dedicated', value: 'db', effect: 'NoSchedule' };

/**
 * Node `name` once the simulated kubelet registered it (its conditions filled in): read before, the
 * kubelet's own status write could land between the read and a patch.
 */
async function registered(name: string): Promise<V1Node> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const node = await read(name);
    if (node.status?.conditions?.some((c) => c.type === 'MemoryPressure')) return node;
    if (Date.now() > deadline) throw new Error(`node ${name} was never registered by its kubelet`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function read(name: string): Promise<V1Node> {
  const node = await port.getNode(name);
  if (node === undefined) throw new Error(`node ${name} is missing`);
  return node;
}

describe('patchNodeGate', () => {
  it('writes the whole taint list and the annotation in one write at the read resourceVersion', async () => {
    cluster.nodes.add('gate-1');
    cluster.nodes.taint('gate-1', gate);
    cluster.nodes.taint('gate-1', other);
    const node = await read('gate-1');
    const written = await port.patchNodeGate('gate-1', node.metadata?.resourceVersion ?? '', [other], {
      'everynode.dev/node-readiness-released': '{"everynode.dev/not-ready":"2026-01-01T00:00:00.000Z"}',
    });
    expect(written.spec?.taints?.map((t) => t.key)).toEqual([other.key]);
    expect(written.metadata?.annotations?.['everynode.dev/node-readiness-released']).toContain('not-ready');
    // Labels and conditions the patch does not name stay.
    expect(written.metadata?.labels?.['kubernetes.io/hostname']).toBe('gate-1');
    expect(written.status?.conditions?.some((c) => c.type === 'Ready')).toBe(true);
  });

  it('removes the last taint (the field goes) and is refused with 409 when the node changed since the read', async () => {
    cluster.nodes.add('gate-2');
    cluster.nodes.taint('gate-2', gate);
    const node = await read('gate-2');
    cluster.nodes.taint('gate-2', other);
    await expect(
      port.patchNodeGate('gate-2', node.metadata?.resourceVersion ?? '', []),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(cluster.nodes.get('gate-2')?.spec?.taints?.map((t) => t.key)).toEqual([gate.key, other.key]);
    const fresh = await read('gate-2');
    const written = await port.patchNodeGate('gate-2', fresh.metadata?.resourceVersion ?? '', []);
    expect(written.spec?.taints).toBeUndefined();
  });
});

describe('patchNodeCondition', () => {
  it("merges the condition by type through nodes/status: the kubelet's conditions and the spec stay", async () => {
    cluster.nodes.add('gate-3');
    cluster.nodes.taint('gate-3', gate);
    const before = await registered('gate-3');
    const kubelet = before.status?.conditions?.map((c) => c.type) ?? [];
    const transition = new Date('2026-01-01T00:00:00Z');
    const written = await port.patchNodeCondition('gate-3', {
      type: 'everynode.dev/DaemonSetsReady',
      status: 'False',
      reason: 'WaitingForDaemonSets',
      message: 'waiting for an available pod of default/agent (everynode.dev/not-ready)',
      lastHeartbeatTime: transition,
      lastTransitionTime: transition,
    });
    const types = (node: V1Node) => (node.status?.conditions ?? []).map((c) => c.type).sort();
    expect(types(written)).toEqual([...kubelet, 'everynode.dev/DaemonSetsReady'].sort());
    expect(written.spec?.taints?.map((t) => t.key)).toEqual([gate.key]);
    // A later write without lastTransitionTime keeps the one stored.
    const later = await port.patchNodeCondition('gate-3', {
      type: 'everynode.dev/DaemonSetsReady',
      status: 'False',
      reason: 'WaitingForDaemonSets',
      message: 'waiting for an available pod of default/agent, default/logs (everynode.dev/not-ready)',
      lastHeartbeatTime: new Date(),
    });
    const ours = later.status?.conditions?.find((c) => c.type === 'everynode.dev/DaemonSetsReady');
    expect(ours?.message).toContain('default/logs');
    expect(ours?.lastTransitionTime?.toISOString()).toBe(transition.toISOString());
    expect(types(later)).toEqual(types(written));
  });

  it('does not touch the spec even when the patch names it (status subresource)', async () => {
    cluster.nodes.add('gate-4');
    cluster.nodes.taint('gate-4', gate);
    const response = await fetch(`${cluster.url}/api/v1/nodes/gate-4/status`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({
        spec: { taints: null },
        status: { conditions: [{ type: 'X', status: 'True' }] },
      }),
    });
    expect(response.status).toBe(200);
    expect(cluster.nodes.get('gate-4')?.spec?.taints?.map((t) => t.key)).toEqual([gate.key]);
  });
});
