import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeControls } from '../../../lib/sim/node-controls.ts';
import { aNode } from '../../support/builders.ts';
import {
  boundPod,
  conditionOf,
  eventually,
  type Harness,
  pause,
  startHarness,
  stripServerFields,
} from '../../support/runtime-harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.stop());

const taintsOf = (n: V1Node | undefined) => (n?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

function start(nodes: V1Node[]): { harness: Harness; controls: NodeControls } {
  harness = startHarness(nodes);
  return { harness, controls: new NodeControls(harness.store) };
}

describe('node lifecycle taints follow the node', () => {
  const cases: { name: string; act: (c: NodeControls) => void; expected: string[] }[] = [
    {
      name: 'Ready=False → not-ready NoSchedule + NoExecute',
      act: (c) => c.setReady('n1', false),
      expected: ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule'],
    },
    {
      name: 'Ready=Unknown → unreachable NoSchedule + NoExecute',
      act: (c) => c.setReady('n1', 'Unknown'),
      expected: ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule'],
    },
    {
      name: 'not ready and back → no controller taints',
      act: (c) => {
        c.setReady('n1', false);
        c.setReady('n1', true);
      },
      expected: [],
    },
    {
      name: 'cordon → unschedulable NoSchedule',
      act: (c) => c.cordon('n1'),
      expected: ['node.kubernetes.io/unschedulable:NoSchedule'],
    },
    {
      name: 'a user taint stays',
      act: (c) => c.taint('n1', { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }),
      expected: ['dedicated:NoSchedule'],
    },
  ];
  it.each(cases)('$name', async ({ act, expected }) => {
    const { harness: h, controls } = start([aNode('n1')]);
    act(controls);
    await eventually(
      () => taintsOf(h.node('n1')),
      (t) => JSON.stringify(t) === JSON.stringify(expected),
    );
    await pause(10);
    expect(taintsOf(h.node('n1'))).toEqual(expected);
  });

  it('uncordon removes the unschedulable taint', async () => {
    const { harness: h, controls } = start([aNode('n1', { unschedulable: true })]);
    await eventually(
      () => taintsOf(h.node('n1')),
      (t) => t.length === 1,
    );
    controls.uncordon('n1');
    await eventually(
      () => taintsOf(h.node('n1')),
      (t) => t.length === 0,
    );
  });
});

describe('NoExecute taint eviction', () => {
  it('evicts a pod not tolerating a NoExecute taint at once, with DisruptionTarget', async () => {
    const { harness: h, controls } = start([aNode('n1')]);
    h.store.create('pods', stripServerFields(boundPod('p', 'n1', { grace: 0 })));
    await eventually(
      () => h.pod('p'),
      (p) => p?.status?.phase === 'Running',
    );
    const seen: string[] = [];
    h.store.subscribe((e) => {
      if (e.key === 'pods') seen.push(conditionOf(e.object as V1Pod, 'DisruptionTarget') ?? '-');
    });
    controls.taint('n1', { key: 'dedicated', value: 'gpu', effect: 'NoExecute' });
    await eventually(
      () => h.pod('p'),
      (p) => p === undefined,
    );
    expect(seen).toContain('True');
  });

  it('honours tolerationSeconds (scaled) and keeps pods tolerating forever', async () => {
    const { harness: h, controls } = start([aNode('n1')]);
    const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' };
    h.store.create(
      'pods',
      stripServerFields(
        boundPod('brief', 'n1', { tolerations: [{ ...notReady, tolerationSeconds: 60 }], grace: 30 }),
      ),
    );
    h.store.create(
      'pods',
      stripServerFields(boundPod('forever', 'n1', { tolerations: [notReady], grace: 0 })),
    );
    await eventually(
      () => h.pod('brief'),
      (p) => p?.status?.phase === 'Running',
    );
    controls.setReady('n1', false);
    await pause(30);
    expect(h.pod('brief')).toBeDefined();
    // The node is not Ready, so its kubelet cannot finish the deletion: the pod stays Terminating.
    await eventually(
      () => h.pod('brief'),
      (p) => p?.metadata?.deletionTimestamp !== undefined,
      1000,
    );
    expect(h.pod('forever')?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('cancels a pending eviction when the taint goes away in time', async () => {
    const { harness: h, controls } = start([aNode('n1')]);
    const toleration = {
      key: 'maintenance',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 100,
    };
    h.store.create('pods', stripServerFields(boundPod('p', 'n1', { tolerations: [toleration], grace: 0 })));
    controls.taint('n1', { key: 'maintenance', effect: 'NoExecute' });
    await pause(20);
    controls.untaint('n1', 'maintenance');
    await pause(150);
    expect(h.pod('p')?.metadata?.deletionTimestamp).toBeUndefined();
  });
});

describe('pod GC', () => {
  it('deletes the pods of a removed node after the scaled quarantine', async () => {
    const { harness: h, controls } = start([aNode('n1'), aNode('n2')]);
    h.store.create('pods', stripServerFields(boundPod('on-n1', 'n1', { grace: 0 })));
    h.store.create('pods', stripServerFields(boundPod('on-n2', 'n2', { grace: 0 })));
    await eventually(
      () => h.pod('on-n1'),
      (p) => p?.status?.phase === 'Running',
    );
    controls.remove('n1');
    await eventually(
      () => h.pod('on-n1'),
      (p) => p === undefined,
    );
    expect(h.pod('on-n2')).toBeDefined();
  });

  it('deletes a pod created bound to a node that never existed', async () => {
    const { harness: h } = start([aNode('n1')]);
    h.store.create('pods', stripServerFields(boundPod('ghost', 'no-such-node', { grace: 0 })));
    await eventually(
      () => h.pod('ghost'),
      (p) => p === undefined,
    );
  });

  it('keeps a pod whose node appears within the quarantine', async () => {
    harness = startHarness([], { timeScale: 0.001, podGcQuarantineSeconds: 100 });
    harness.store.create('pods', stripServerFields(boundPod('early', 'late-node', { grace: 0 })));
    new NodeControls(harness.store).add('late-node');
    await pause(150);
    expect(harness.pod('early')?.metadata?.deletionTimestamp).toBeUndefined();
  });
});
