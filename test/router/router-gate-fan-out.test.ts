/**
 * Router rules for a change of the node readiness gates in use: a DaemonSet trigger with
 * `gateChange` (and a relist's resync with one) sends, besides its usual work, every node's `node`
 * step naming the keys that may have stopped being gated — against the simulated cluster through
 * the real client, read off the real FIFO work queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_READINESS_ANNOTATION } from '../../lib/core/node-gates/gate-declaration.ts';
import { messageDeduplicationId } from '../../lib/messages/message-deduplication-id.ts';
import { RESYNC_DETAIL_TYPE } from '../../lib/messages/trigger.ts';
import { routeIngressMessage } from '../../lib/router/router.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import {
  describeWork,
  envelope,
  type RouterWorld,
  routerNodes,
  startRouterWorld,
  watch,
} from './router-harness.ts';

const K = 'everynode.dev/not-ready';
const OLD = 'example.com/old-gate';

let world: RouterWorld;

beforeAll(async () => {
  world = await startRouterWorld();
});
afterAll(async () => world.stop());

const nodeNames = routerNodes.map((n) => n.metadata?.name ?? '').sort();
const everyNode = nodeNames.map((name) => `node:${name}`);

/** A relayed event of DaemonSet kube-system/fluentd. */
const fluentd = (detail: Record<string, unknown>) =>
  watch({
    kind: 'DaemonSet',
    apiVersion: 'apps/v1',
    name: 'fluentd',
    namespace: 'kube-system',
    uid: world.fluentdUid,
    ...detail,
  });

interface FanOutCase {
  name: string;
  body: () => string;
  work: string[];
  gateKeys?: string[];
}

const cases: FanOutCase[] = [
  {
    name: 'gate removed → daemonset, and every node with the key',
    body: () => fluentd({ event: 'MODIFIED', changes: ['annotations'], gateChange: { keys: [K] } }),
    work: ['daemonset:kube-system/fluentd', ...everyNode],
    gateKeys: [K],
  },
  {
    name: 'gate re-keyed → every node with both keys',
    body: () => fluentd({ event: 'MODIFIED', changes: ['spec'], gateChange: { keys: [OLD, K] } }),
    work: ['daemonset:kube-system/fluentd', ...everyNode],
    gateKeys: [OLD, K],
  },
  {
    name: 'gating DaemonSet deleted → every node',
    body: () => fluentd({ event: 'DELETED', gateChange: { keys: [K] } }),
    work: ['daemonset:kube-system/fluentd', ...everyNode],
    gateKeys: [K],
  },
  {
    name: 'a change naming no key (a dry run) → every node, without gateKeys',
    body: () => fluentd({ event: 'MODIFIED', changes: ['annotations'], gateChange: { keys: [] } }),
    work: ['daemonset:kube-system/fluentd', ...everyNode],
  },
  {
    name: 'any other DaemonSet change → only daemonset',
    body: () => fluentd({ event: 'MODIFIED', changes: ['annotations'] }),
    work: ['daemonset:kube-system/fluentd'],
  },
];

describe('router: gate changes fan out to every node', () => {
  it.each(cases)('$name', async ({ body, work, gateKeys }) => {
    const outcome = await routeIngressMessage(body(), world.deps);
    const received = await world.drainWork();
    expect(outcome).toMatchObject({ type: 'routed', work: work.length, delayed: 0 });
    expect(received.map((r) => describeWork(r.message)).sort()).toEqual(work.sort());
    for (const { message, groupId } of received.filter((r) => r.message.kind === 'node')) {
      expect(message).toEqual({
        v: 1,
        kind: 'node',
        managedKind: 'apps/v1',
        node: { name: groupId?.slice('node:'.length) },
        cause: expect.objectContaining({ type: 'watch', kind: 'DaemonSet' }),
        ...(gateKeys ? { gateKeys } : {}),
      });
    }
  });

  it('gives each node its own FIFO group and de-duplication id, from the DaemonSet event’s cause', async () => {
    const body = fluentd({ event: 'DELETED', resourceVersion: '4711', gateChange: { keys: [K] } });
    await routeIngressMessage(body, world.deps);
    const nodes = (await world.drainWork()).filter((r) => r.message.kind === 'node');
    expect(nodes.map((r) => r.groupId).sort()).toEqual(everyNode);
    for (const { message, deduplicationId } of nodes) {
      expect(message.cause).toEqual({
        type: 'watch',
        event: 'DELETED',
        kind: 'DaemonSet',
        resourceVersion: '4711',
      });
      expect(deduplicationId).toBe(messageDeduplicationId(message));
    }
    // The same trigger routed again (a retried router) is the same work: SQS drops it.
    await routeIngressMessage(body, world.deps);
    expect(await world.drainWork()).toEqual([]);
  });

  it('ignores a gate change of a DaemonSet of the kind not managed', async () => {
    const outcome = await routeIngressMessage(
      watch({
        event: 'DELETED',
        kind: 'DaemonSet',
        apiVersion: 'everynode.dev/v1',
        name: 'x',
        namespace: 'default',
        gateChange: { keys: [K] },
      }),
      world.deps,
    );
    expect(outcome.type).toBe('ignored');
    expect(await world.drainWork()).toEqual([]);
  });

  it('a relist resync with a gate change: every DaemonSet and every node; without one, DaemonSets only', async () => {
    const resync = (detail: Record<string, unknown>) =>
      envelope('everynode.relay', RESYNC_DETAIL_TYPE, {
        v: 1,
        reason: 'relay relisted daemonsets after 410 Gone',
        ...detail,
      });
    await routeIngressMessage(resync({ gateChange: { keys: [OLD] } }), world.deps);
    const relisted = await world.drainWork();
    const daemonSets = ['daemonset:kiada/demo', 'daemonset:kube-system/fluentd'];
    expect(relisted.map((r) => describeWork(r.message)).sort()).toEqual([...daemonSets, ...everyNode].sort());
    for (const r of relisted.filter((w) => w.message.kind === 'node'))
      expect(r.message).toMatchObject({ gateKeys: [OLD], cause: { type: 'resync' } });
    // A later tick: the same tick's daemonset work would be dropped as a duplicate.
    const later = { ...JSON.parse(resync({})), time: new Date(Date.now() + 60_000).toISOString() };
    await routeIngressMessage(JSON.stringify(later), world.deps);
    expect((await world.drainWork()).map((r) => describeWork(r.message)).sort()).toEqual(daemonSets);
  });

  it('the start-up resync (a gate change naming no key): every node only while some DaemonSet gates', async () => {
    const startup = (at: number) =>
      JSON.stringify({
        ...JSON.parse(
          envelope('everynode.relay', RESYNC_DETAIL_TYPE, {
            v: 1,
            reason: 'everynode run started',
            gateChange: { keys: [] },
          }),
        ),
        time: new Date(at).toISOString(),
      });
    const daemonSets = ['daemonset:kiada/demo', 'daemonset:kube-system/fluentd'];
    // No DaemonSet declares a gate: no node waits on one, so no node step (three reads each).
    await routeIngressMessage(startup(Date.now() + 120_000), world.deps);
    expect((await world.drainWork()).map((r) => describeWork(r.message)).sort()).toEqual(daemonSets);
    const fluentdNow = world.sim.store.get('apps/daemonsets', 'kube-system', 'fluentd') as KubeObject;
    const annotations = { ...fluentdNow.metadata.annotations, [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' };
    world.sim.store.update('apps/daemonsets', {
      ...fluentdNow,
      metadata: { ...fluentdNow.metadata, annotations },
    });
    try {
      await routeIngressMessage(startup(Date.now() + 180_000), world.deps);
      const work = (await world.drainWork()).map((r) => describeWork(r.message)).sort();
      expect(work).toEqual([...daemonSets, ...everyNode].sort());
    } finally {
      const gated = world.sim.store.get('apps/daemonsets', 'kube-system', 'fluentd') as KubeObject;
      world.sim.store.update('apps/daemonsets', {
        ...gated,
        metadata: { ...gated.metadata, annotations: fluentdNow.metadata.annotations ?? {} },
      });
    }
  });
});
