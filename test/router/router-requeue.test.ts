import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoisonMessageError } from '../../lib/messages/poison-message-error.ts';
import { formatRequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import { delayedIngressMessage } from '../../lib/queue/delayed-ingress-message.ts';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import { nodeMessage } from '../support/reconcile-cluster.ts';
import { describeWork, fluentdPod, type RouterWorld, startRouterWorld } from './router-harness.ts';

let world: RouterWorld;

beforeAll(async () => {
  world = await startRouterWorld();
});
afterAll(async () => world.stop());

const pod = (detail: Record<string, unknown>): string => fluentdPod(world.fluentdUid, detail);

describe('router requeues (delayed ingress messages)', () => {
  it('forwards a due requeue with its de-duplication id and sends a future one round again', async () => {
    const message = nodeMessage('worker-1', new Date('2026-01-01T00:00:00Z'));
    const now = new Date();
    const due = delayedIngressMessage(message, new Date(now.getTime() - 1000), now, 'status:abc:1');
    expect(await routeIngressMessage(due.body, world.deps)).toEqual({ type: 'forwarded' });
    const received = await world.drainWork();
    expect(received.map((r) => [describeWork(r.message), r.deduplicationId])).toEqual([
      ['node:worker-1', 'status:abc:1'],
    ]);

    const delayedBefore = world.sentToIngress();
    const later = delayedIngressMessage(message, new Date(now.getTime() + 3600_000), now);
    expect(await routeIngressMessage(later.body, world.deps)).toEqual({ type: 'delayed' });
    expect(await world.drainWork()).toEqual([]);
    expect(world.sentToIngress() - delayedBefore).toBe(1);
  });

  it.each([
    { name: 'a day less a minute ahead', aheadMs: 86_340_000, outcome: 'delayed' },
    { name: 'exactly a day ahead', aheadMs: 86_400_000, outcome: 'delayed' },
    { name: 'a day and a second ahead', aheadMs: 86_401_000, outcome: 'refused' },
    { name: 'years ahead', aheadMs: 3 * 365 * 86_400_000, outcome: 'refused' },
  ])(
    'sends an envelope due $name round again only when no requeue waits longer',
    async ({ aheadMs, outcome }) => {
      const message = nodeMessage('worker-2', new Date('2026-01-01T00:00:00Z'));
      const now = new Date('2026-03-01T00:00:00Z');
      const deps = { ...world.deps, clock: () => now };
      const envelope = formatRequeueEnvelope(message, new Date(now.getTime() + aheadMs));
      const delayedBefore = world.sentToIngress();
      const routed = routeIngressMessage(envelope, deps).then(
        (result) => result.type,
        (error: unknown) =>
          error instanceof PoisonMessageError && !error.retryable ? 'refused' : String(error),
      );
      expect(await routed).toBe(outcome);
      expect(world.sentToIngress() - delayedBefore).toBe(outcome === 'delayed' ? 1 : 0);
      expect(await world.drainWork()).toEqual([]);
    },
  );

  it('holds an envelope that came under a second early until it is due, then forwards it', async () => {
    const message = nodeMessage('worker-3', new Date('2026-01-01T00:00:00Z'));
    const now = new Date();
    const soon = delayedIngressMessage(message, new Date(now.getTime() + 1500), now);
    expect(soon.delaySeconds).toBe(1);
    const held: number[] = [];
    const deps = { ...world.deps, sleep: async (ms: number) => held.push(ms) };
    const early = delayedIngressMessage(message, new Date(now.getTime() + 400), now);
    expect(early.delaySeconds).toBeUndefined();
    expect(await routeIngressMessage(early.body, deps)).toEqual({ type: 'forwarded' });
    expect(held).toHaveLength(1);
    expect(held[0]).toBeGreaterThan(0);
    expect(held[0]).toBeLessThanOrEqual(400);
    expect((await world.drainWork()).map((r) => describeWork(r.message))).toEqual(['node:worker-3']);
  });

  it('sends one status refresh per DaemonSet and window for a burst of readiness changes', async () => {
    const recent = new RecentlySent();
    const delayedBefore = world.sentToIngress();
    for (let i = 0; i < 5; i++)
      await routeIngressMessage(
        pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], resourceVersion: `${100 + i}` }),
        world.deps,
        recent,
      );
    expect(world.sentToIngress() - delayedBefore).toBeLessThanOrEqual(2);
  });
});
