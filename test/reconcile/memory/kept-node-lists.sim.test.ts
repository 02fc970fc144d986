import type { V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_RECOUNT_WINDOW_SECONDS } from '../../../lib/messages/requeue-envelope.ts';
import type { DaemonSetMessage, WorkMessage } from '../../../lib/messages/work-message.ts';
import {
  RECOUNT_REASON,
  reconcileDaemonSet,
} from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { listOrCatchUpNodes, NODE_LIST_REUSE_MS } from '../../../lib/reconcile/daemon-set-step/read-nodes.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { KeptNodeLists, NODE_LIST_REUSE_MIN_NODES } from '../../../lib/reconcile/memory/kept-node-lists.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, daemonSetMessage, podsOf } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3'];

describe('a DaemonSet step reuses the node LIST while no node changed', () => {
  let harness: Harness;
  let message: DaemonSetMessage;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
    freshReuse();
    message = daemonSetMessage(createDaemonSet(harness, aDaemonSet('agent'))) as DaemonSetMessage;
  });
  afterAll(async () => harness?.stop());

  /**
   * A new reuse record for the process, planning on kept LISTs of any size (three nodes here; the
   * process default starts at thousands) and remembering no recount asked for yet.
   */
  const freshReuse = () => {
    (harness.deps.memory as { keptNodes: KeptNodeLists }).keptNodes = new KeptNodeLists(0);
  };
  const nodeLists = () =>
    harness.sim.counters.total({ verb: 'list', resource: 'nodes', userAgent: RECONCILE_USER_AGENT });
  const nodeWatches = () =>
    harness.sim.counters.total({ verb: 'watch', resource: 'nodes', userAgent: RECONCILE_USER_AGENT });
  const nodeVersion = (name: string) =>
    (harness.sim.store.get('nodes', undefined, name) as KubeObject).metadata.resourceVersion ?? '';
  /**
   * One step of `message` with `nodesVersion`, arriving now; resolves to the node LISTs it made and
   * the node WATCHes it caught the kept table up with.
   */
  const step = async (nodesVersion?: string) => {
    const [lists, watches] = [nodeLists(), nodeWatches()];
    const stamped = nodesVersion === undefined ? message : { ...message, nodesVersion };
    await reconcileDaemonSet(harness.deps, stamped, Date.now());
    return { lists: nodeLists() - lists, watches: nodeWatches() - watches };
  };
  const listed = { lists: 1, watches: 0 };
  const caughtUp = { lists: 0, watches: 1 };
  const reused = { lists: 0, watches: 0 };

  it('lists without a version, reuses its LIST for a version it covers, catches it up after a change', async () => {
    expect(await step()).toEqual(listed);
    const known = nodeVersion('n3');
    expect(await step(known)).toEqual(reused);
    expect(await step(known)).toEqual(reused);
    // A change the relay saw after the LIST: the step must see it.
    const n2 = harness.sim.store.get('nodes', undefined, 'n2') as unknown as V1Node;
    harness.sim.store.update('nodes', {
      ...n2,
      metadata: { ...n2.metadata, labels: { ...n2.metadata?.labels, zone: 'b' } },
    } as unknown as KubeObject);
    expect(await step(nodeVersion('n2'))).toEqual(caughtUp);
    expect(await step(nodeVersion('n2'))).toEqual(reused);
    // A message without a version (a resync, another sender) never plans on a kept LIST unread.
    expect(await step()).toEqual(caughtUp);
  });

  it('catches the kept node table up to what a LIST would show, and lists once it is two minutes old', async () => {
    freshReuse();
    const zoneOf = (nodes: readonly V1Node[], name: string) =>
      nodes.find((n) => n.metadata?.name === name)?.metadata?.labels?.zone;
    const first = await listOrCatchUpNodes(harness.deps);
    const n3 = harness.sim.store.get('nodes', undefined, 'n3') as unknown as V1Node;
    harness.sim.store.update('nodes', {
      ...n3,
      metadata: { ...n3.metadata, labels: { ...n3.metadata?.labels, zone: 'c' } },
    } as unknown as KubeObject);
    const [lists, watches] = [nodeLists(), nodeWatches()];
    const second = await listOrCatchUpNodes(harness.deps);
    expect([nodeLists() - lists, nodeWatches() - watches]).toEqual([0, 1]);
    expect(zoneOf(first.items, 'n3')).toBeUndefined();
    expect(zoneOf(second.items, 'n3')).toBe('c');
    expect(second.items.map((n) => n.metadata?.name).sort()).toEqual(NODES);
    expect(second.resourceVersion).toBe(nodeVersion('n3'));
    const later = { ...harness.deps, clock: () => new Date(Date.now() + NODE_LIST_REUSE_MS + 1000) };
    await listOrCatchUpNodes(later);
    expect(nodeLists() - lists).toBe(1);
  });

  it('plans on the reused LIST as on a fresh one: every node gets its pod, the status counts them', async () => {
    const pods = () => podsOf(harness, message.daemonSet.uid ?? '');
    const deadline = Date.now() + 10_000;
    while (pods().length < NODES.length && Date.now() < deadline) {
      await harness.invokeOnce(1);
    }
    expect(pods()).toHaveLength(NODES.length);
    expect(await step(nodeVersion('n1'))).toEqual(reused);
    const status = (harness.sim.store.get('apps/daemonsets', 'default', 'agent') as KubeObject).status as {
      desiredNumberScheduled?: number;
    };
    expect(status.desiredNumberScheduled).toBe(NODES.length);
  });

  it('follows a step planned on a kept LIST with one recount that lists again, and no other step', async () => {
    freshReuse();
    const requeued: { message: WorkMessage; afterSeconds: number; deduplicationId?: string }[] = [];
    const deps: ReconcileDeps = {
      ...harness.deps,
      ports: {
        ...harness.deps.ports,
        requeue: {
          async requeue(message: WorkMessage, afterSeconds: number, deduplicationId?: string) {
            requeued.push({ message, afterSeconds, ...(deduplicationId ? { deduplicationId } : {}) });
          },
        },
      },
    };
    await reconcileDaemonSet(deps, message, Date.now());
    expect(
      requeued.filter((r) => r.message.cause.type === 'requeue' && r.message.cause.reason === RECOUNT_REASON),
    ).toEqual([]);
    await reconcileDaemonSet(deps, { ...message, nodesVersion: nodeVersion('n1') }, Date.now());
    const recounts = requeued.filter(
      (r) => r.message.cause.type === 'requeue' && r.message.cause.reason === RECOUNT_REASON,
    );
    expect(recounts).toHaveLength(1);
    const [recount] = recounts;
    expect(recount?.message.kind).toBe('daemonset');
    expect(recount?.message).not.toHaveProperty('nodesVersion');
    expect(recount?.afterSeconds).toBeGreaterThan(0);
    expect(recount?.afterSeconds).toBeLessThanOrEqual(NODE_RECOUNT_WINDOW_SECONDS);
    expect(recount?.deduplicationId).toMatch(/^recount:/);
    // The recount itself reads every node afresh (its kept table caught up): not followed by another.
    const before = nodeWatches();
    await reconcileDaemonSet(deps, recount?.message as DaemonSetMessage, Date.now());
    expect(nodeWatches() - before).toBe(1);
    expect(
      requeued.filter((r) => r.message.cause.type === 'requeue' && r.message.cause.reason === RECOUNT_REASON),
    ).toHaveLength(1);
  });

  it('skips a recount once a later step of its DaemonSet counted from a LIST begun after it was asked', async () => {
    freshReuse();
    const requeued: WorkMessage[] = [];
    const deps: ReconcileDeps = {
      ...harness.deps,
      ports: {
        ...harness.deps.ports,
        requeue: {
          async requeue(message: WorkMessage) {
            requeued.push(message);
          },
        },
      },
    };
    const isRecount = (m: WorkMessage) => m.cause.type === 'requeue' && m.cause.reason === RECOUNT_REASON;
    await reconcileDaemonSet(deps, { ...message, nodesVersion: nodeVersion('n1') }, Date.now());
    const recount = requeued.find(isRecount) as DaemonSetMessage;
    expect(recount).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // A later step that reads afresh (a resync, a trigger after a node change; this process keeps no
    // node table yet, so a LIST): it counts from it.
    expect(await step()).toEqual(listed);
    const gets = () =>
      harness.sim.counters.total({
        verb: 'get',
        resource: 'apps/daemonsets',
        userAgent: RECONCILE_USER_AGENT,
      });
    const [listsBefore, getsBefore] = [nodeLists(), gets()];
    await reconcileDaemonSet(deps, recount, Date.now());
    expect([nodeLists() - listsBefore, gets() - getsBefore]).toEqual([0, 0]);
  });

  it('lists again for a small cluster, whose LIST costs less than the recount its reuse needs', async () => {
    (harness.deps.memory as { keptNodes: KeptNodeLists }).keptNodes = new KeptNodeLists();
    expect(NODES.length).toBeLessThan(NODE_LIST_REUSE_MIN_NODES);
    expect(await step()).toEqual(listed);
    expect(await step(nodeVersion('n3'))).toEqual(listed);
    freshReuse();
  });
});
