/**
 * A node whose allocatable grew makes its daemon pod wrongly sized: the DaemonSet step's status
 * no longer counts it updated, and its rolling update resizes that pod in place (inPlace
 * IfPossible) or recreates it (Never), from the node and pod LISTs it makes anyway — no other
 * read — and touches no other pod.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSetMessage, PairMessage } from '../../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import { agentContainer, eksNode, exampleRules, LARGE, XL8 } from '../../core/node-sizing/sizing-fixtures.ts';
import { aDaemonSet } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  isReady,
  pairMessage,
  podsOf,
  storedDaemonSet,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import {
  coldDeps,
  reconcileRequests,
  startStepHarness,
  writesAmong,
} from '../../support/reconcile-step-deps.ts';

const LARGE_SIZE = { requests: { cpu: '50m', memory: '186Mi' }, limits: { cpu: '50m', memory: '372Mi' } };
const XL8_SIZE = { requests: { cpu: '160m', memory: '2181Mi' }, limits: { cpu: '160m', memory: '4362Mi' } };

/** A node of `type` to create: as the fixtures make it, without a resourceVersion. */
function sizedNode(name: string, allocatable: Record<string, string>): V1Node {
  const node = eksNode(name, 'm6a.large', allocatable);
  return { ...node, metadata: { ...node.metadata, resourceVersion: undefined } };
}

describe.each(['IfPossible', 'Never'] as const)('a node that grew under inPlace %s', (inPlace) => {
  let harness: Harness;
  let ds: V1DaemonSet;
  const name = `grown-${inPlace.toLowerCase()}`;
  const [small, grown] = [`${name}-a`, `${name}-b`];
  const agentOf = (pod: V1Pod | undefined) => pod?.spec?.containers.find((c) => c.name === 'agent');
  const podOn = (node: string) =>
    podsOf(harness, ds.metadata?.uid ?? '').find(
      (p) => targetNodeName(p) === node && p.metadata?.deletionTimestamp === undefined,
    );
  const step = () =>
    reconcileDaemonSet(coldDeps(harness.deps), daemonSetMessage(ds) as DaemonSetMessage, Date.now());

  beforeAll(async () => {
    harness = await startStepHarness();
    harness.sim.nodes.remove('n1');
    harness.sim.nodes.add(sizedNode(small, LARGE));
    harness.sim.nodes.add(sizedNode(grown, LARGE));
    ds = createDaemonSet(
      harness,
      aDaemonSet(name, {
        annotations: {
          'everynode.dev/node-sizing': JSON.stringify(exampleRules('agent')),
          'everynode.dev/in-place': inPlace,
        },
        podSpec: {
          containers: [agentContainer()],
        },
      }),
    );
    for (const node of [small, grown])
      await reconcilePair(coldDeps(harness.deps), pairMessage(ds, node) as PairMessage);
    await waitFor('both pods ready', () => [small, grown].every((node) => isReady(podOn(node) ?? {})));
    await step();
    expect(storedDaemonSet(harness, 'default', name)?.status?.updatedNumberScheduled).toBe(2);
  });
  afterAll(async () => harness?.stop());

  it('updates only the pod of the node that grew, from the LISTs the step makes anyway', async () => {
    const before = { small: podOn(small), grown: podOn(grown) };
    expect(agentOf(before.grown)?.resources).toEqual(LARGE_SIZE);
    const node = harness.sim.store.get('nodes', undefined, grown) as unknown as V1Node;
    harness.sim.store.update('nodes', { ...node, status: { ...node.status, allocatable: XL8 } } as never, {
      subresource: 'status',
    });

    harness.sim.counters.reset();
    const deps = coldDeps(harness.deps);
    await reconcileDaemonSet(deps, daemonSetMessage(ds) as DaemonSetMessage, Date.now());
    const requests = reconcileRequests(harness.sim);
    // No GET of a node or a pod: the node LIST and the pod LIST are all sizing needs.
    expect(
      Object.keys(requests).filter((key) => key.startsWith('get ') && !key.includes('daemonsets')),
    ).toEqual([]);
    const status = storedDaemonSet(harness, 'default', name)?.status;
    // The step counts from what it listed: the grown node's pod is not updated.
    expect(status?.updatedNumberScheduled).toBe(1);
    expect(podOn(small)?.metadata?.resourceVersion).toBe(before.small?.metadata?.resourceVersion);
    const writes = writesAmong(requests);
    if (inPlace === 'IfPossible') {
      // The resize, then the patch writing its pending state (the pod carried none of a resize).
      expect(writes).toMatchObject({ 'patch pods/resize': 1, 'patch pods': 1 });
      expect(writes['delete pods']).toBeUndefined();
      const after = podOn(grown);
      expect(after?.metadata?.uid).toBe(before.grown?.metadata?.uid);
      expect(agentOf(after)?.resources).toEqual(XL8_SIZE);
      // The process's next catch-up of the kept pods reads at least as far as the step's own write.
      const written = Number(deps.memory.keptPods.catchUpTarget(ds.metadata?.uid ?? '', '1'));
      expect(written).toBeGreaterThan(Number(before.grown?.metadata?.resourceVersion));
    } else {
      expect(writes).toMatchObject({ 'delete pods': 1 });
      expect(writes['patch pods/resize']).toBeUndefined();
      // Gone from the store, not only terminating: the pair step creates nothing while it terminates.
      const gone = before.grown?.metadata?.uid;
      await waitFor('the old pod gone', () =>
        podsOf(harness, ds.metadata?.uid ?? '').every((pod) => pod.metadata?.uid !== gone),
      );
      await reconcilePair(coldDeps(harness.deps), pairMessage(ds, grown) as PairMessage);
      expect(agentOf(podOn(grown))?.resources).toEqual(XL8_SIZE);
    }
    await waitFor('the grown node’s pod ready with its new size', () => {
      const pod = podOn(grown);
      return isReady(pod ?? {}) && pod?.status?.containerStatuses?.[0]?.resources?.requests?.cpu === '160m';
    });
    harness.sim.counters.reset();
    await step();
    expect(storedDaemonSet(harness, 'default', name)?.status?.updatedNumberScheduled).toBe(2);
    // Nothing more to do: every pod is current.
    expect(writesAmong(reconcileRequests(harness.sim))).not.toHaveProperty('patch pods/resize');
  });
});
