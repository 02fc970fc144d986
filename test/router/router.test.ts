import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESYNC_DETAIL_TYPE, WATCH_DETAIL_TYPE } from '../../lib/messages/trigger.ts';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import { routerCounterNames } from '../../lib/router/router-deps.ts';
import {
  describeWork,
  ec2,
  envelope,
  fluentdPod,
  type RouterWorld,
  startRouterWorld,
  watch,
} from './router-harness.ts';

let world: RouterWorld;
let fluentdUid: string;

beforeAll(async () => {
  world = await startRouterWorld();
  fluentdUid = world.fluentdUid;
});
afterAll(async () => world.stop());

const pod = (detail: Record<string, unknown>): string => fluentdPod(fluentdUid, detail);

interface RouteCase {
  name: string;
  body: () => string;
  work: string[];
  delayed: number;
  outcome: string;
}

const cases: RouteCase[] = [
  {
    name: 'node added → node',
    body: () => watch({ event: 'ADDED', kind: 'Node', apiVersion: 'v1', name: 'worker-2' }),
    work: ['node:worker-2'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'node deleted → node',
    body: () => watch({ event: 'DELETED', kind: 'Node', apiVersion: 'v1', name: 'gone-1' }),
    work: ['node:gone-1'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'managed DaemonSet modified → daemonset',
    body: () =>
      watch({
        event: 'MODIFIED',
        kind: 'DaemonSet',
        apiVersion: 'apps/v1',
        name: 'fluentd',
        namespace: 'kube-system',
        changes: ['spec'],
      }),
    work: ['daemonset:kube-system/fluentd'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'DaemonSet of the kind not managed → ignored',
    body: () =>
      watch({
        event: 'ADDED',
        kind: 'DaemonSet',
        apiVersion: 'everynode.dev/v1',
        name: 'x',
        namespace: 'default',
      }),
    work: [],
    delayed: 0,
    outcome: 'ignored',
  },
  {
    name: 'pod deleted → pair and a status refresh',
    body: () => pod({ event: 'DELETED', nodeName: 'worker-1' }),
    work: ['pair:kube-system/fluentd@worker-1'],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod turned Failed → pair and a status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['phase', 'terminal'] }),
    work: ['pair:kube-system/fluentd@worker-1'],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod got a deletionTimestamp → pair',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-2', changes: ['deleting'] }),
    work: ['pair:kube-system/fluentd@worker-2'],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod became ready → only a status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'] }),
    work: [],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod created → only a status refresh',
    body: () => pod({ event: 'ADDED', nodeName: 'worker-1' }),
    work: [],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod change unknown (no changes field) → pair and status',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-2' }),
    work: ['pair:kube-system/fluentd@worker-2'],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'pod being deleted without a node → daemonset',
    body: () => pod({ event: 'MODIFIED', changes: ['deleting'] }),
    work: ['daemonset:kube-system/fluentd'],
    delayed: 1,
    outcome: 'routed',
  },
  {
    name: 'orphan pod → daemonset for each managed DaemonSet of its namespace',
    body: () =>
      watch({
        event: 'MODIFIED',
        kind: 'Pod',
        apiVersion: 'v1',
        name: 'demo-x',
        namespace: 'kiada',
        changes: ['controller'],
      }),
    work: ['daemonset:kiada/demo'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'pod of another controller → ignored',
    body: () =>
      watch({
        event: 'DELETED',
        kind: 'Pod',
        apiVersion: 'v1',
        name: 'web-1',
        namespace: 'default',
        controller: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-1' },
      }),
    work: [],
    delayed: 0,
    outcome: 'ignored',
  },
  {
    name: 'EC2 state change → node by providerID',
    body: () => ec2('i-0aaa1111bbbb2222c'),
    work: ['node:worker-1'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'EC2 state change → node named after the instance',
    body: () => ec2('i-0ddd3333eeee4444f'),
    work: ['node:i-0ddd3333eeee4444f.ec2.internal'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'EC2 state change of an instance without a node → ignored',
    body: () => ec2('i-0123456789abcdef0'),
    work: [],
    delayed: 0,
    outcome: 'ignored',
  },
  {
    name: 'scheduled resync → daemonset per managed DaemonSet',
    body: () => envelope('aws.events', 'Scheduled Event', {}),
    work: ['daemonset:kiada/demo', 'daemonset:kube-system/fluentd'],
    delayed: 0,
    outcome: 'routed',
  },
  {
    name: 'resync scoped to one DaemonSet → that daemonset',
    body: () =>
      envelope('everynode.relay', RESYNC_DETAIL_TYPE, { v: 1, scope: { namespace: 'kiada', name: 'demo' } }),
    work: ['daemonset:kiada/demo (no uid)'],
    delayed: 0,
    outcome: 'routed',
  },
  { name: 'not JSON → unusable', body: () => 'hello', work: [], delayed: 0, outcome: 'unusable' },
  {
    name: 'unknown detail-type → unusable',
    body: () => envelope('acme', 'Something', {}),
    work: [],
    delayed: 0,
    outcome: 'unusable',
  },
  {
    name: 'watch detail missing fields → unusable',
    body: () => envelope('everynode.relay', WATCH_DETAIL_TYPE, { v: 1 }),
    work: [],
    delayed: 0,
    outcome: 'unusable',
  },
  {
    name: 'malformed requeue envelope → unusable',
    body: () => JSON.stringify({ kind: 'requeue', v: 1 }),
    work: [],
    delayed: 0,
    outcome: 'unusable',
  },
];

describe('router rules (ingress message → work queue)', () => {
  it.each(cases)('$name', async ({ body, work, delayed, outcome }) => {
    const delayedBefore = world.sentToIngress();
    const result = await routeIngressMessage(body(), world.deps, new RecentlySent());
    const received = await world.drainWork();
    expect(result.type).toBe(outcome);
    expect(received.map((r) => describeWork(r.message)).sort()).toEqual(work);
    expect(world.sentToIngress() - delayedBefore).toBe(delayed);
  });

  it("passes a node event's relay hints on to the node message, and drops malformed ones as unusable", async () => {
    const hints = {
      observedAt: new Date().toISOString(),
      node: { name: 'worker-2', resourceVersion: '55', labels: { disk: 'ssd' } },
      daemonSets: [{ uid: fluentdUid, resourceVersion: '9' }],
      pods: [],
    };
    await routeIngressMessage(
      watch({ event: 'ADDED', kind: 'Node', apiVersion: 'v1', name: 'worker-2', hints }),
      world.deps,
    );
    const received = await world.drainWork();
    expect(received.map((r) => r.message)).toMatchObject([
      { kind: 'node', node: { name: 'worker-2' }, hints },
    ]);
    const malformed = { ...hints, daemonSets: [{ uid: '' }] };
    const outcome = await routeIngressMessage(
      watch({ event: 'ADDED', kind: 'Node', apiVersion: 'v1', name: 'worker-2', hints: malformed }),
      world.deps,
    );
    expect(outcome.type).toBe('unusable');
  });

  it("passes a pod event's pair hints on to the pair message", async () => {
    const pairHints = {
      observedAt: new Date().toISOString(),
      daemonSet: { resourceVersion: '9', generation: 1 },
      node: { name: 'worker-1', resourceVersion: '5' },
      pods: [],
    };
    await routeIngressMessage(pod({ event: 'DELETED', nodeName: 'worker-1', pairHints }), world.deps);
    const received = await world.drainWork();
    expect(received.map((r) => r.message).filter((m) => m.kind === 'pair')).toMatchObject([
      { kind: 'pair', node: { name: 'worker-1' }, hints: pairHints },
    ]);
  });

  it('counts unusable triggers and never throws for them', async () => {
    const before = world.counters.get(routerCounterNames.unusable);
    await routeIngressMessage('{"source":"nobody"}', world.deps);
    expect(world.counters.get(routerCounterNames.unusable)).toBe(before + 1);
  });

  it('gives a replayed event a replay cause, so it is not de-duplicated against the original', async () => {
    const added = {
      event: 'ADDED',
      kind: 'Node',
      apiVersion: 'v1',
      name: 'worker-2',
      resourceVersion: '777',
    };
    const original = watch(added);
    const replayed = watch(added, 'local-1');
    await routeIngressMessage(original, world.deps);
    await routeIngressMessage(original, world.deps);
    await routeIngressMessage(replayed, world.deps);
    const received = await world.drainWork();
    expect(received.map((r) => r.message.cause.type)).toEqual(['watch', 'replay']);
  });

  it('runs two resyncs asked within one second twice, and one resync delivered twice once', async () => {
    const scoped = { v: 1, scope: { namespace: 'kiada', name: 'demo' } };
    const first = envelope('everynode.relay', RESYNC_DETAIL_TYPE, scoped);
    // Another event of the same second: EventBridge times are whole seconds.
    const second = JSON.stringify({
      ...JSON.parse(envelope('everynode.relay', RESYNC_DETAIL_TYPE, scoped)),
      time: JSON.parse(first).time,
    });
    for (const body of [first, first, second]) await routeIngressMessage(body, world.deps);
    const received = await world.drainWork();
    expect(received.map((r) => describeWork(r.message))).toEqual([
      'daemonset:kiada/demo (no uid)',
      'daemonset:kiada/demo (no uid)',
    ]);
  });
});
