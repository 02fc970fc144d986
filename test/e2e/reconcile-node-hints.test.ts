import type { V1ControllerRevision, V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import type { NodeHints } from '../../lib/messages/node-hints.ts';
import type { NodeMessage, PairMessage } from '../../lib/messages/work-message.ts';
import { Expectations } from '../../lib/reconcile/memory/expectations.ts';
import { ObjectCache } from '../../lib/reconcile/memory/object-cache.ts';
import { reconcileNode } from '../../lib/reconcile/node-step/node-step.ts';
import { reconcilePair } from '../../lib/reconcile/pair-step/pair-step.ts';
import { RelayNodeContext } from '../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  createDaemonSet,
  daemonSetKey,
  daemonSetMessage,
  nodeMessage,
  pairMessage,
  placementOf,
  podsOf,
  storedDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

describe('node and pair messages with the relay hints', () => {
  let harness: Harness;
  let agent: ReturnType<typeof createDaemonSet>;
  let ssd: ReturnType<typeof createDaemonSet>;
  const uid = (ds: typeof agent) => ds.metadata?.uid ?? '';

  /** What the relay knows when it has just listed the cluster as it is. */
  function relayContext(): RelayNodeContext {
    const context = new RelayNodeContext();
    context.seed('nodes', harness.sim.store.list('nodes') as unknown as V1Node[]);
    context.seed('pods', harness.sim.store.list('pods') as unknown as V1Pod[]);
    context.seed(
      'daemonsets',
      harness.sim.store.list(daemonSetKey(harness.managedKind)) as unknown as DaemonSet[],
    );
    context.seed(
      'controllerrevisions',
      harness.sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[],
    );
    return context;
  }

  /** The hints the relay would attach to an event of node `name` now, from the cluster as it is. */
  function relayHints(name: string, observedAt = new Date()): NodeHints {
    const node = harness.sim.nodes.get(name) as V1Node;
    const hints = relayContext().hintsFor(node, observedAt);
    if (hints === undefined) throw new Error('no hints');
    return hints;
  }

  function hinted(name: string, hints: NodeHints): NodeMessage {
    return { ...(nodeMessage(name) as NodeMessage), hints };
  }

  /** Runs the node step in this process and returns the API requests it made, by verb and resource. */
  async function step(message: NodeMessage): Promise<Record<string, number>> {
    harness.sim.counters.reset();
    await reconcileNode(harness.deps, message, reconcilePair);
    await harness.deps.memory.events.flush();
    const counts: Record<string, number> = {};
    for (const entry of harness.sim.counters.snapshot()) {
      const key = `${entry.verb} ${entry.resource}`;
      counts[key] = (counts[key] ?? 0) + entry.count;
    }
    return counts;
  }

  const onNode = (ds: typeof agent, node: string) =>
    podsOf(harness, uid(ds)).filter((pod) => targetNodeName(pod) === node);

  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: [aNode('n1'), aNode('n2', { labels: { disk: 'ssd' } })],
      pollWork: false,
    });
    agent = createDaemonSet(harness, aDaemonSet('agent'));
    ssd = createDaemonSet(harness, aDaemonSet('ssd', { nodeSelector: { disk: 'ssd' } }));
    await harness.send(daemonSetMessage(agent), daemonSetMessage(ssd));
    while ((await harness.invokeOnce(1)).event.Records.length > 0);
    await waitFor(
      'initial placement',
      () =>
        placementOf(harness, uid(agent)).join() === 'n1,n2' && placementOf(harness, uid(ssd)).join() === 'n2',
    );
  });
  afterAll(async () => harness?.stop());

  beforeEach(async () => {
    // A warm process: the DaemonSets and their revision hashes are known from an earlier step.
    await reconcileNode(harness.deps, nodeMessage('n1') as NodeMessage, reconcilePair);
  });

  it('a node joining costs its pod creates and their Events, no read', async () => {
    harness.sim.nodes.add('n3', { labels: { disk: 'ssd' } });
    const requests = await step(hinted('n3', relayHints('n3')));
    expect(placementOf(harness, uid(agent))).toEqual(['n1', 'n2', 'n3']);
    expect(placementOf(harness, uid(ssd))).toEqual(['n2', 'n3']);
    expect(requests).toEqual({ 'create pods': 2, 'create events': 2 });
  });

  it('hints older than the limit are not planned from: the node is read', async () => {
    harness.sim.nodes.add('n4');
    const hints = relayHints('n4', new Date(Date.now() - 120_000));
    // What the hints say is wrong (the node has no disk=ssd label): a read corrects it.
    const stale = { ...hints, node: { ...hints.node, labels: { ...hints.node.labels, disk: 'ssd' } } };
    const requests = await step(hinted('n4', stale));
    expect(requests['get nodes']).toBe(1);
    expect(onNode(ssd, 'n4')).toEqual([]);
    expect(onNode(agent, 'n4')).toHaveLength(1);
  });

  it('a pod made after the hints were taken is not made twice', async () => {
    harness.sim.nodes.add('n5');
    const before = relayHints('n5');
    await step(nodeMessage('n5') as NodeMessage);
    expect(onNode(agent, 'n5')).toHaveLength(1);
    const requests = await step(hinted('n5', before));
    expect(requests).toEqual({ 'create pods': 1 });
    expect(onNode(agent, 'n5')).toHaveLength(1);
  });

  it('a process with nothing cached plans from the hints alone: the DaemonSets and revision hashes they carry', async () => {
    harness.sim.nodes.add('n8', { labels: { disk: 'ssd' } });
    const cold = {
      ...harness.deps,
      memory: { ...harness.deps.memory, objects: new ObjectCache(), expectations: new Expectations() },
    };
    harness.sim.counters.reset();
    await reconcileNode(cold, hinted('n8', relayHints('n8')), reconcilePair);
    await cold.memory.events.flush();
    const requests = harness.sim.counters.snapshot().map((entry) => `${entry.verb} ${entry.resource}`);
    expect(requests.sort()).toEqual(['create events', 'create pods']);
    expect(harness.sim.counters.total()).toBe(4);
    expect(onNode(agent, 'n8')).toHaveLength(1);
    // The pods carry the hash the DaemonSet step gave the others.
    const hashOf = (pod: V1Pod | undefined) => pod?.metadata?.labels?.['controller-revision-hash'];
    expect(hashOf(onNode(ssd, 'n8')[0])).toBe(hashOf(onNode(ssd, 'n2')[0]));
  });

  it('a DaemonSet version the process has not seen, with hints too large to carry it, costs one LIST of DaemonSets', async () => {
    harness.sim.store.mutate(daemonSetKey(harness.managedKind), 'default', 'agent', (ds) => {
      ds.metadata = { ...ds.metadata, annotations: { ...ds.metadata?.annotations, touched: 'yes' } };
    });
    harness.sim.nodes.add('n6');
    const hints = relayHints('n6');
    const slim = { ...hints, daemonSets: hints.daemonSets.map(({ object: _, ...version }) => version) };
    const requests = await step(hinted('n6', slim));
    expect(requests['list apps/daemonsets'] ?? requests['list everynode.dev/daemonsets']).toBe(1);
    expect(requests['get nodes']).toBeUndefined();
    expect(onNode(agent, 'n6')).toHaveLength(1);
  });

  it('a DaemonSet whose status this process just wrote is known at its new version', async () => {
    harness.sim.nodes.add('n7');
    const before = storedDaemonSet(harness, 'default', 'agent')?.metadata?.resourceVersion;
    await harness.send(daemonSetMessage(agent));
    await harness.invokeOnce(1);
    expect(storedDaemonSet(harness, 'default', 'agent')?.metadata?.resourceVersion).not.toBe(before);
    const requests = await step(hinted('n7', relayHints('n7')));
    expect(Object.keys(requests).filter((key) => key.startsWith('list') || key.startsWith('get'))).toEqual(
      [],
    );
  });

  it("a pod deleted is replaced from the relay's pair hints: the create and the DaemonSet confirmed, no LIST", async () => {
    const [gone] = onNode(agent, 'n1');
    harness.sim.store.delete('pods', 'default', gone?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await waitFor('pod gone', () => onNode(agent, 'n1').length === 0);
    const context = relayContext();
    const deletedAt = String(Number(gone?.metadata?.resourceVersion) + 1);
    const hints = context.pairHintsFor(gone as V1Pod, new Date(), deletedAt);
    expect(hints?.pods).toEqual([]);
    harness.sim.counters.reset();
    await reconcilePair(harness.deps, {
      ...(pairMessage(agent, 'n1') as PairMessage),
      ...(hints ? { hints } : {}),
    });
    await harness.deps.memory.events.flush();
    expect(onNode(agent, 'n1')).toHaveLength(1);
    expect(harness.sim.counters.total({ verb: 'create', resource: 'pods' })).toBe(1);
    // The process read the DaemonSet before the pod's deletion was seen: a DaemonSet deleted just
    // before its pods must not get one back, so the create waits for one GET of it.
    expect(harness.sim.counters.total({ verb: 'list' })).toBe(0);
    expect(harness.sim.counters.total({ verb: 'get' })).toBe(1);

    // Once the process has listed the pair since, the same event's hints have nothing to add.
    await reconcilePair(harness.deps, pairMessage(agent, 'n1') as PairMessage);
    harness.sim.counters.reset();
    const cause = {
      type: 'watch' as const,
      kind: 'Pod' as const,
      event: 'DELETED' as const,
      resourceVersion: hints?.podsResourceVersion ?? '1',
    };
    const again = { ...(pairMessage(agent, 'n1') as PairMessage), cause, ...(hints ? { hints } : {}) };
    await reconcilePair(harness.deps, again);
    expect(harness.sim.counters.total()).toBe(0);
  });

  it('a replacement whose DaemonSet only changed status since the copy is confirmed by the GET alone', async () => {
    const [gone] = onNode(agent, 'n2');
    harness.sim.store.delete('pods', 'default', gone?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await waitFor('pod gone', () => onNode(agent, 'n2').length === 0);
    const deletedAt = String(Number(gone?.metadata?.resourceVersion) + 1);
    // The process holds the DaemonSet as read a second before the pod's deletion was seen.
    const copy = storedDaemonSet(harness, 'default', 'agent') as DaemonSet;
    harness.deps.memory.objects.putDaemonSet(copy, Date.now() - 1_000);
    const hints = relayContext().pairHintsFor(gone as V1Pod, new Date(), deletedAt);
    expect(hints?.daemonSet.resourceVersion).toBe(copy.metadata?.resourceVersion);
    // Another writer moves the DaemonSet on (its status): same generation, new resourceVersion.
    harness.sim.store.mutate(
      'apps/daemonsets',
      'default',
      'agent',
      (ds) => {
        ds.status = { ...(ds.status as object), numberUnavailable: 7 };
      },
      { subresource: 'status' },
    );
    harness.sim.counters.reset();
    await reconcilePair(harness.deps, {
      ...(pairMessage(agent, 'n2') as PairMessage),
      ...(hints ? { hints } : {}),
    });
    await harness.deps.memory.events.flush();
    expect(onNode(agent, 'n2')).toHaveLength(1);
    expect(harness.sim.counters.total({ verb: 'get' })).toBe(1);
    expect(harness.sim.counters.total({ verb: 'list' })).toBe(0);
  });

  it('a label removed per the hints deletes the pod with the hinted preconditions', async () => {
    harness.sim.nodes.label('n3', { disk: null });
    const requests = await step(hinted('n3', relayHints('n3')));
    await waitFor('ssd pod gone from n3', () =>
      onNode(ssd, 'n3').every((pod) => pod.metadata?.deletionTimestamp),
    );
    expect(requests['delete pods']).toBe(1);
    // A delete because of the node is decided on its current version: one GET, as hinted.
    expect(requests['get nodes']).toBe(1);
    expect(requests['list pods']).toBeUndefined();
  });
});
