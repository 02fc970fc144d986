import type { V1Node } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeControls } from '../../../lib/sim/node-controls.ts';
import { aNode } from '../../support/builders.ts';
import { findKubectl, tableRows, useKubectlSim } from '../../support/kubectl-harness.ts';
import {
  boundPod,
  conditionOf,
  eventually,
  type Harness,
  pause,
  startHarness,
  stripServerFields,
} from '../../support/runtime-harness.ts';
import { pollUntil } from '../../support/test-daemon-controller.ts';

const BREAK_NODE = 'everynode.dev/sim:break-node';
/** 1 simulated second = 50 ms: containers run 50 ms after the pod is bound and break the node 150 ms later. */
const timing = { timeScale: 0.05 };
const startMs = 50;
const breakMs = 150;

let harness: Harness | undefined;
afterEach(() => harness?.stop());

/** The node's Ready condition as stored (JSON: times are strings). */
const readyOf = (node: V1Node | undefined) =>
  node?.status?.conditions?.find((c) => c.type === 'Ready') as Record<string, unknown> | undefined;
const taintsOf = (node: V1Node | undefined) => (node?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
const notReadyTaints = ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute'];

function start(nodes: string[]): Harness {
  harness = startHarness(
    nodes.map((n) => aNode(n)),
    timing,
  );
  return harness;
}

function createPod(h: Harness, name: string, node: string, image = 'busybox'): void {
  h.store.create('pods', stripServerFields(boundPod(name, node, { image })));
}

const brokenNode = (h: Harness, name: string) =>
  eventually(
    () => h.node(name),
    (n) => conditionOf(n, 'Ready') === 'False',
  );
const readyNode = (h: Harness, name: string) =>
  eventually(
    () => h.node(name),
    (n) => conditionOf(n, 'Ready') === 'True',
  );

describe('the break-node image marker', () => {
  it('turns its node NotReady (KubeletNotReady) breakNodeSeconds after the container starts; another node stays Ready', async () => {
    const h = start(['n1', 'n2']);
    const created = Date.now();
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    createPod(h, 'web', 'n2');
    const running = await eventually(
      () => h.pod('breaker'),
      (p) => p?.status?.phase === 'Running',
    );
    expect(running?.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(conditionOf(h.node('n1'), 'Ready')).toBe('True');

    const broken = await brokenNode(h, 'n1');
    // A few ms of slack: the timer and Date.now round differently.
    expect(Date.now() - created).toBeGreaterThanOrEqual(startMs + breakMs - 5);
    expect(readyOf(broken)).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message:
        'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady ' +
        'message:Network plugin returns error: everynode.dev/sim:break-node agent broke the node',
      lastHeartbeatTime: expect.any(String),
      lastTransitionTime: expect.any(String),
    });
    // The node lifecycle controller taints it as for any NotReady node; the other node is untouched.
    await eventually(
      () => taintsOf(h.node('n1')),
      (taints) => notReadyTaints.every((t) => taints.includes(t)),
    );
    expect(conditionOf(h.node('n2'), 'Ready')).toBe('True');
    expect(taintsOf(h.node('n2'))).toEqual([]);
    expect(h.pod('web')?.status?.phase).toBe('Running');
    // The kubelet of n1 is up: it keeps running its pods (the pod tolerates not-ready for 300 s).
    await eventually(
      () => h.pod('breaker'),
      (p) => p?.status?.phase === 'Running' && conditionOf(p, 'Ready') === 'True',
    );
  });

  it('keeps the node NotReady while the pod runs, and Ready again once it is deleted and its container has exited', async () => {
    const h = start(['n1']);
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    const broken = await brokenNode(h, 'n1');
    await pause(300); // 6 simulated seconds
    expect(readyOf(h.node('n1'))).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      lastTransitionTime: readyOf(broken)?.lastTransitionTime,
    });

    h.store.delete('pods', 'default', 'breaker');
    // Terminating, its container not exited yet: still NotReady.
    expect(conditionOf(h.node('n1'), 'Ready')).toBe('False');
    const ready = await readyNode(h, 'n1');
    expect(readyOf(ready)).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
    });
    expect(h.pod('breaker')).toBeUndefined();
    await eventually(
      () => taintsOf(h.node('n1')),
      (taints) => taints.length === 0,
    );
  });

  it('stops breaking the node once its pod is set to Failed through pods/status', async () => {
    const h = start(['n1']);
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    await brokenNode(h, 'n1');
    h.store.mutate(
      'pods',
      'default',
      'breaker',
      (p) => {
        p.status = { ...(p.status as object), phase: 'Failed' };
      },
      { subresource: 'status' },
    );
    await readyNode(h, 'n1');
    expect(h.pod('breaker')?.status?.phase).toBe('Failed');
  });

  it('keeps the node NotReady until every break-node pod on it has stopped', async () => {
    const h = start(['n1']);
    createPod(h, 'breaker-1', 'n1', BREAK_NODE);
    createPod(h, 'breaker-2', 'n1', `${BREAK_NODE}-v2`);
    await brokenNode(h, 'n1');
    h.store.delete('pods', 'default', 'breaker-1');
    await eventually(
      () => h.pod('breaker-1'),
      (p) => p === undefined,
    );
    await pause(100);
    expect(conditionOf(h.node('n1'), 'Ready')).toBe('False');
    h.store.delete('pods', 'default', 'breaker-2');
    await readyNode(h, 'n1');
  });

  it('leaves alone a node the controls set NotReady: its kubelet is down until they set it Ready again', async () => {
    const h = start(['n1']);
    const controls = new NodeControls(h.store);
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    await brokenNode(h, 'n1');
    controls.setReady('n1', false);
    const controlled = readyOf(h.node('n1'));
    expect(controlled).toMatchObject({
      status: 'False',
      message: 'container runtime network not ready: NetworkReady=false',
    });

    // The kubelet is down: the deleted pod stays Terminating and the node keeps what the controls set.
    h.store.delete('pods', 'default', 'breaker');
    await pause(300);
    expect(h.pod('breaker')?.metadata?.deletionTimestamp).toBeDefined();
    expect(readyOf(h.node('n1'))).toEqual(controlled);

    // Up again: the pod finishes terminating, and nothing breaks the node any more.
    controls.setReady('n1', true);
    await eventually(
      () => h.pod('breaker'),
      (p) => p === undefined,
    );
    await pause(100);
    expect(readyOf(h.node('n1'))).toMatchObject({ status: 'True', reason: 'KubeletReady' });
  });

  it('does not start a break-node pod on a node the controls keep NotReady, nor touch its Ready condition', async () => {
    const h = start(['n1']);
    const controls = new NodeControls(h.store);
    controls.setReady('n1', false);
    const controlled = readyOf(h.node('n1'));
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    await pause(startMs + breakMs + 100);
    expect(h.pod('breaker')?.status?.phase).toBe('Pending');
    expect(readyOf(h.node('n1'))).toEqual(controlled);
  });

  it('reports the node NotReady again when something sets it Ready while a break-node pod still runs', async () => {
    const h = start(['n1']);
    createPod(h, 'breaker', 'n1', BREAK_NODE);
    await brokenNode(h, 'n1');
    new NodeControls(h.store).setReady('n1', true);
    await eventually(
      () => readyOf(h.node('n1')),
      (ready) => ready?.status === 'False' && ready.reason === 'KubeletNotReady',
    );
  });
});

const binary = findKubectl();

describe.runIf(binary)('the break-node image marker, seen by kubectl', () => {
  // 1 simulated second = 100 ms: the node breaks 400 ms after the pod is created.
  const sim = useKubectlSim(binary, { nodes: [aNode('n1'), aNode('n2')], timing: { timeScale: 0.1 } });
  const statusOf = async () =>
    Object.fromEntries(tableRows(await sim.ok(['get', 'nodes'])).map((row) => [row[0], row[1]]));

  it('`kubectl get nodes` shows the node NotReady, and Ready again once the pod is deleted', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'breaker' },
      spec: { nodeName: 'n1', containers: [{ name: 'agent', image: BREAK_NODE }] },
    };
    await sim.ok(['apply', '-f', '-'], JSON.stringify(pod));
    expect(await pollUntil(statusOf, (s) => s.n1 === 'NotReady')).toMatchObject({
      n1: 'NotReady',
      n2: 'Ready',
    });
    await sim.ok(['delete', 'pod', 'breaker', '--timeout=20s']);
    expect(await pollUntil(statusOf, (s) => s.n1 === 'Ready')).toMatchObject({ n1: 'Ready', n2: 'Ready' });
  });
});
