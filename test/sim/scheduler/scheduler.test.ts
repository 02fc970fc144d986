import type { V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureNodes } from '../../../lib/sim/sim-nodes.ts';
import { aNode, aPod } from '../../support/builders.ts';
import {
  eventually,
  type Harness,
  pause,
  startHarness,
  stripServerFields,
} from '../../support/runtime-harness.ts';

const seedNodes = fixtureNodes();

const daemonTolerations: V1PodSpec['tolerations'] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** An unbound pod pinned to `node` the way a daemon pod is. */
function daemonPod(name: string, node: string): V1Pod {
  const pod = aPod(name, { phase: 'Pending' });
  delete pod.status;
  pod.spec = {
    containers: [{ name: 'main', image: 'busybox' }],
    tolerations: daemonTolerations,
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
        },
      },
    },
  };
  return pod;
}

let harness: Harness | undefined;
afterEach(() => harness?.stop());

describe('scheduler over the store', () => {
  it.each([
    ['worker-1', 'worker-1'],
    ['worker-ssd', 'worker-ssd'],
    ['cordoned-1', 'cordoned-1'],
  ])('binds a daemon pod pinned to %s there, with PodScheduled=True', async (node, expected) => {
    harness = startHarness(seedNodes);
    harness.store.create('pods', stripServerFields(daemonPod('p', node)));
    const pod = await eventually(
      () => harness?.pod('p'),
      (p) => Boolean(p?.spec?.nodeName),
    );
    expect(pod?.spec?.nodeName).toBe(expected);
    expect(pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ status: 'True' });
  });

  it('leaves a pod pinned to the master Pending with PodScheduled=False Unschedulable and the reason', async () => {
    harness = startHarness(seedNodes);
    harness.store.create('pods', stripServerFields(daemonPod('p', 'master-1')));
    const pod = await eventually(
      () => harness?.pod('p'),
      (p) => Boolean(p?.status?.conditions?.some((c) => c.type === 'PodScheduled')),
    );
    expect(pod?.spec?.nodeName).toBeUndefined();
    expect(pod?.status?.phase).toBe('Pending');
    expect(pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: expect.stringContaining('1 node(s) had untolerated taint {node-role.kubernetes.io/master: }'),
    });
  });

  it('binds an unschedulable pod once a node change makes it fit', async () => {
    harness = startHarness([aNode('n1')]);
    const pod = aPod('p', { phase: 'Pending' });
    delete pod.status;
    pod.spec = { containers: [{ name: 'main', image: 'busybox' }], nodeSelector: { disk: 'ssd' } };
    harness.store.create('pods', stripServerFields(pod));
    await eventually(
      () => harness?.pod('p'),
      (p) => p?.status?.conditions?.[0]?.reason === 'Unschedulable',
    );
    harness.store.mutate('nodes', undefined, 'n1', (n) => {
      n.metadata.labels = { ...n.metadata.labels, disk: 'ssd' };
    });
    const bound = await eventually(
      () => harness?.pod('p'),
      (p) => Boolean(p?.spec?.nodeName),
    );
    expect(bound?.spec?.nodeName).toBe('n1');
  });

  it('spreads plain pods over the nodes with the fewest pods', async () => {
    harness = startHarness([aNode('a'), aNode('b')]);
    for (const name of ['p1', 'p2', 'p3', 'p4']) {
      const pod = aPod(name, { phase: 'Pending' });
      delete pod.status;
      harness.store.create('pods', stripServerFields(pod));
    }
    const pods = await eventually(
      () => harness?.store.list('pods', { namespace: 'default' }) ?? [],
      (list) => list.length === 4 && list.every((p) => (p.spec as V1PodSpec).nodeName),
    );
    const perNode = pods.map((p) => (p.spec as V1PodSpec).nodeName).sort();
    expect(perNode).toEqual(['a', 'a', 'b', 'b']);
  });

  it('never touches a pod asking for another scheduler', async () => {
    harness = startHarness([aNode('a')]);
    const pod = aPod('p', { phase: 'Pending' });
    delete pod.status;
    pod.spec = { containers: [{ name: 'main', image: 'busybox' }], schedulerName: 'other' };
    harness.store.create('pods', stripServerFields(pod));
    await pause(30);
    expect(harness.pod('p')?.spec?.nodeName).toBeUndefined();
  });
});
