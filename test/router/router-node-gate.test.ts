/**
 * Router rules for the pods of a DaemonSet that gates its node: on top of what any pod event
 * routes, a readiness-relevant change sends the node's `node` step, with the relay's node hints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import { describeWork, fluentdPod, type RouterWorld, startRouterWorld } from './router-harness.ts';

let world: RouterWorld;

beforeAll(async () => {
  world = await startRouterWorld();
});
afterAll(async () => world.stop());

const pod = (detail: Record<string, unknown>): string => fluentdPod(world.fluentdUid, detail);
const gating = (detail: Record<string, unknown>): string => pod({ gatesNode: true, ...detail });

function nodeHints(name: string) {
  return {
    observedAt: new Date().toISOString(),
    node: {
      name,
      resourceVersion: '55',
      taints: [{ key: 'everynode.dev/not-ready', effect: 'NoSchedule' }],
    },
    daemonSets: [{ uid: world.fluentdUid, resourceVersion: '9' }],
    pods: [
      {
        name: 'fluentd-x',
        uid: 'p-1',
        resourceVersion: '70',
        nodeName: name,
        phase: 'Running',
        ready: true,
      },
    ],
  };
}

interface GateCase {
  name: string;
  body: () => string;
  work: string[];
}

const cases: GateCase[] = [
  {
    name: 'gating pod became (not) ready → node, besides the status refresh',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'] }),
    work: ['node:worker-1'],
  },
  {
    name: 'gating pod started running → node',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['phase'] }),
    work: ['node:worker-1'],
  },
  {
    name: 'gating pod turned Failed → pair and node',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['phase', 'terminal'] }),
    work: ['node:worker-1', 'pair:kube-system/fluentd@worker-1'],
  },
  {
    name: 'gating pod terminating → pair and node',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-2', changes: ['deleting'] }),
    work: ['node:worker-2', 'pair:kube-system/fluentd@worker-2'],
  },
  {
    name: 'gating pod deleted → pair and node',
    body: () => gating({ event: 'DELETED', nodeName: 'worker-1' }),
    work: ['node:worker-1', 'pair:kube-system/fluentd@worker-1'],
  },
  {
    name: 'gating pod seen ready at creation → node',
    body: () => gating({ event: 'ADDED', nodeName: 'worker-1' }),
    work: ['node:worker-1'],
  },
  {
    name: 'gating pod with unknown changes → pair and node',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-2' }),
    work: ['node:worker-2', 'pair:kube-system/fluentd@worker-2'],
  },
  {
    name: 'gating pod only bound → only the status refresh',
    body: () => gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['node'] }),
    work: [],
  },
  {
    name: 'gating pod without a node → no node message',
    body: () => gating({ event: 'MODIFIED', changes: ['ready'] }),
    work: [],
  },
  {
    name: 'gating pod without a node being deleted → daemonset, no node message',
    body: () => gating({ event: 'MODIFIED', changes: ['deleting'] }),
    work: ['daemonset:kube-system/fluentd'],
  },
  {
    name: 'non-gating pod became ready (an older relay: no gatesNode) → only the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'] }),
    work: [],
  },
  {
    name: 'gatesNode false → only the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], gatesNode: false }),
    work: [],
  },
];

describe('router rules for pods that gate their node', () => {
  it.each(cases)('$name', async ({ body, work }) => {
    const delayedBefore = world.sentToIngress();
    const result = await routeIngressMessage(body(), world.deps, new RecentlySent());
    const received = await world.drainWork();
    expect(result.type).toBe('routed');
    expect(received.map((r) => describeWork(r.message)).sort()).toEqual(work);
    expect(world.sentToIngress() - delayedBefore).toBe(1);
  });

  it("sends the node step in the node's FIFO group with the relay's node hints and the pod event's cause", async () => {
    const hints = nodeHints('worker-1');
    await routeIngressMessage(
      gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], resourceVersion: '4242', hints }),
      world.deps,
    );
    const received = await world.drainWork();
    expect(received.map((r) => [r.groupId, r.message])).toMatchObject([
      [
        'node:worker-1',
        {
          kind: 'node',
          node: { name: 'worker-1' },
          cause: { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '4242' },
          hints,
        },
      ],
    ]);
  });

  it('passes no hints that describe another node', async () => {
    await routeIngressMessage(
      gating({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], hints: nodeHints('worker-2') }),
      world.deps,
    );
    const received = await world.drainWork();
    expect(received.map((r) => r.message)).toMatchObject([{ kind: 'node', node: { name: 'worker-1' } }]);
    expect(received[0]?.message).not.toHaveProperty('hints');
  });

  it('refuses a trigger whose gatesNode is not a boolean, as any malformed detail', async () => {
    const outcome = await routeIngressMessage(
      pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], gatesNode: 'yes' }),
      world.deps,
    );
    expect(outcome.type).toBe('unusable');
    expect(await world.drainWork()).toEqual([]);
  });
});
