import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import { podHintOf } from '../../lib/messages/pair-hints.ts';
import type { PairMessage } from '../../lib/messages/work-message.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  nodeMessage,
  pairMessage,
  placementOf,
  podsOf,
  storedDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

describe('node changes', () => {
  let harness: Harness;
  let agent: ReturnType<typeof createDaemonSet>;
  let ssd: ReturnType<typeof createDaemonSet>;
  const uid = (ds: typeof agent) => ds.metadata?.uid ?? '';

  /** Sends the node message the router sends for a node event and waits for the pipeline to finish. */
  async function nodeChanged(name: string): Promise<void> {
    await harness.send(nodeMessage(name));
    await harness.quiet();
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1'), aNode('n2', { labels: { disk: 'ssd' } })] });
    agent = createDaemonSet(harness, aDaemonSet('agent'));
    ssd = createDaemonSet(harness, aDaemonSet('ssd', { nodeSelector: { disk: 'ssd' } }));
    await harness.send(daemonSetMessage(agent), daemonSetMessage(ssd));
    await waitFor(
      'initial placement',
      () =>
        placementOf(harness, uid(agent)).join() === 'n1,n2' && placementOf(harness, uid(ssd)).join() === 'n2',
    );
    await harness.quiet();
  });
  afterAll(async () => harness?.stop());

  it('a node added gets the daemon pods that should run there', async () => {
    harness.sim.nodes.add('n3');
    await nodeChanged('n3');
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2', 'n3']);
    expect(placementOf(harness, uid(ssd))).toEqual(['n2']);
  });

  it('a label matching a nodeSelector adds the pod; removing it removes the pod', async () => {
    harness.sim.nodes.label('n3', { disk: 'ssd' });
    await nodeChanged('n3');
    expect(placementOf(harness, uid(ssd))).toEqual(['n2', 'n3']);
    harness.sim.nodes.label('n3', { disk: null });
    await nodeChanged('n3');
    expect(placementOf(harness, uid(ssd))).toEqual(['n2']);
  });

  it('a NoSchedule taint keeps the running pod but a deleted one is not replaced', async () => {
    harness.sim.nodes.taint('n3', { key: 'dedicated', value: 'x', effect: 'NoSchedule' });
    await nodeChanged('n3');
    const onN3 = podsOf(harness, uid(agent)).find((pod) => pod.spec?.nodeName === 'n3');
    expect(onN3?.metadata?.deletionTimestamp).toBeUndefined();
    harness.sim.store.delete('pods', onN3?.metadata?.namespace, onN3?.metadata?.name ?? '', {
      gracePeriodSeconds: 0,
    });
    await harness.send(pairMessage(agent, 'n3'));
    await harness.quiet();
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2']);
  });

  it('a NoExecute taint removes the pod; removing the taints brings it back', async () => {
    harness.sim.nodes.untaint('n3', 'dedicated');
    await nodeChanged('n3');
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2', 'n3']);
    harness.sim.nodes.taint('n3', { key: 'dedicated', value: 'x', effect: 'NoExecute' });
    await nodeChanged('n3');
    await waitFor(
      'pod gone from n3',
      () => !podsOf(harness, uid(agent)).some((pod) => pod.spec?.nodeName === 'n3'),
    );
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2']);
    harness.sim.nodes.untaint('n3', 'dedicated');
    await nodeChanged('n3');
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2', 'n3']);
  });

  it('a NotReady node keeps its daemon pod but gets no pod of a new DaemonSet', async () => {
    harness.sim.nodes.setReady('n3', false);
    await waitFor('not-ready taints', () =>
      (harness.sim.nodes.get('n3')?.spec?.taints ?? []).some(
        (t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule',
      ),
    );
    await nodeChanged('n3');
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2', 'n3']);
    const late = createDaemonSet(harness, aDaemonSet('late'));
    await harness.send(daemonSetMessage(late));
    await waitFor(
      'late placed',
      () => placementOf(harness, uid(late)).join() === 'n1,n2' && allReady(harness, uid(late)),
    );
    await harness.quiet();
    expect(placementOf(harness, uid(late))).toEqual(['n1', 'n2']);
    await harness.send(daemonSetMessage(late));
    await harness.quiet();
    expect(storedDaemonSet(harness, 'default', 'late')?.status).toMatchObject({
      desiredNumberScheduled: 2,
      numberReady: 2,
    });
  });

  it('a node removed loses its daemon pods', async () => {
    harness.sim.nodes.remove('n3');
    await nodeChanged('n3');
    await waitFor(
      'pods of n3 gone',
      () => !podsOf(harness, uid(agent)).some((pod) => pod.spec?.nodeName === 'n3'),
    );
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2']);
    await harness.send(daemonSetMessage(agent));
    await harness.quiet();
    expect(storedDaemonSet(harness, 'default', 'agent')?.status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
    });
  });

  it("a node missing from a DaemonSet step's LIST keeps the pod made for it since", async () => {
    harness.sim.nodes.add('n5');
    await nodeChanged('n5');
    const made = podsOf(harness, uid(agent)).find((pod) => pod.spec?.nodeName === 'n5') as V1Pod;
    expect(made).toBeDefined();
    const stored = storedDaemonSet(harness, 'default', 'agent');
    // What a DaemonSet step that listed the nodes just before n5 joined fans out: node null.
    const stale: PairMessage = {
      ...(pairMessage(agent, 'n5') as PairMessage),
      hints: {
        observedAt: new Date().toISOString(),
        daemonSet: {
          resourceVersion: stored?.metadata?.resourceVersion ?? '',
          generation: stored?.metadata?.generation ?? 1,
          revisionHash: made.metadata?.labels?.['controller-revision-hash'] ?? '',
        },
        node: null,
        pods: [podHintOf(made)],
      },
    };
    await harness.send(stale);
    await harness.quiet();
    const still = podsOf(harness, uid(agent)).find((pod) => pod.metadata?.uid === made.metadata?.uid);
    expect(still).toBeDefined();
    expect(still?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('a node removed before its daemon pod was bound loses the unbound pod too', async () => {
    const stored = storedDaemonSet(harness, 'default', 'agent') as DaemonSet;
    const bound = podsOf(harness, uid(agent)).find((pod) => pod.spec?.nodeName === 'n1');
    const hash = bound?.metadata?.labels?.['controller-revision-hash'] ?? '';
    // Made for a node that left before the scheduler bound it: no node, so it stays unbound.
    harness.sim.store.create('pods', daemonPodFor(stored, 'left-early', hash) as unknown as KubeObject);
    await waitFor('the unbound pod exists', () => placementOf(harness, uid(agent)).includes('left-early'));
    await nodeChanged('left-early');
    await waitFor('the unbound pod is gone', () => !placementOf(harness, uid(agent)).includes('left-early'));
  });
});
