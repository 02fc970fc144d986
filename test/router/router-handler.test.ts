import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonSetWindow } from '../../lib/messages/daemon-set-window.ts';
import { daemonSetRequeueSlot, formatRequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import { RESYNC_DETAIL_TYPE, WATCH_DETAIL_TYPE } from '../../lib/messages/trigger.ts';
import { eventEnvelopeOf } from '../../lib/queue/event-bus.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type SqsEventSource, startSqsEventSource } from '../../lib/queue/sqs-event-source.ts';
import { routerCounterNames } from '../../lib/router/router-deps.ts';
import { createRouterHandler } from '../../lib/router/router-handler.ts';
import { statusRefresh } from '../../lib/router/router-work.ts';
import { nodeMessage } from '../support/reconcile-cluster.ts';
import { describeWork, type ReceivedWork, type RouterWorld, startRouterWorld } from './router-harness.ts';

let world: RouterWorld;
let source: SqsEventSource;

beforeAll(async () => {
  world = await startRouterWorld();
  source = startSqsEventSource({
    sqs: world.queues.sqs,
    queueUrl: world.queues.urls.ingress,
    handler: createRouterHandler(world.deps),
    functionName: 'router',
  });
});
afterAll(async () => {
  await source.stop();
  await world.stop();
});

async function workUntil(
  done: (all: ReceivedWork[]) => boolean,
  timeoutMs = 10_000,
): Promise<ReceivedWork[]> {
  const all: ReceivedWork[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!done(all) && Date.now() < deadline) {
    all.push(...(await world.drainWork()));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return all;
}

async function ingressDepth(url: string): Promise<number> {
  const { now, delayed } = await queueDepth(world.queues.sqs, url);
  return now + delayed;
}

const body = (detailType: string, detail: Record<string, unknown>) =>
  JSON.stringify(eventEnvelopeOf({ source: 'everynode.relay', detailType, detail }));

describe('the router handler behind the local SQS event source', () => {
  it('routes triggers and drops unusable ones without retrying them', async () => {
    const unusableBefore = world.counters.get(routerCounterNames.unusable);
    await sendMessages(world.queues.sqs, world.queues.urls.ingress, [
      {
        body: body(WATCH_DETAIL_TYPE, {
          v: 1,
          event: 'ADDED',
          kind: 'Node',
          apiVersion: 'v1',
          name: 'worker-2',
          uid: 'u',
          resourceVersion: '5',
        }),
      },
      { body: 'not a trigger' },
    ]);
    const work = await workUntil((all) => all.length >= 1);
    expect(work.map((w) => describeWork(w.message))).toEqual(['node:worker-2']);
    await workUntil(() => world.counters.get(routerCounterNames.unusable) > unusableBefore);
    expect(world.counters.get(routerCounterNames.unusable)).toBe(unusableBefore + 1);
    expect(await ingressDepth(world.queues.urls.ingress)).toBe(0);
    expect(await ingressDepth(world.queues.urls.ingressDlq)).toBe(0);
  });

  it('sends a trigger whose routing met an outage back with backoff, past maxReceiveCount, and routes it once the API server is back', async () => {
    const retriedBefore = world.counters.get(routerCounterNames.retriesDelayed);
    world.sim.faults.setErrorRate('list', { status: 503, rate: 1, retryAfterSeconds: 0 });
    await sendMessages(world.queues.sqs, world.queues.urls.ingress, [
      { body: body(RESYNC_DETAIL_TYPE, { v: 1, reason: 'test' }) },
    ]);
    // Tries at 0, 1, 3 and 7 s: SQS alone would have received it 8 times (visibility 1 s) and moved
    // it to the ingress DLQ after 5.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(await world.drainWork()).toEqual([]);
    expect(world.counters.get(routerCounterNames.retriesDelayed) - retriedBefore).toBe(4);
    expect(await ingressDepth(world.queues.urls.ingressDlq)).toBe(0);
    expect(await ingressDepth(world.queues.urls.ingress)).toBe(1);
    world.sim.faults.setErrorRate('list', { status: 503, rate: 0 });
    const work = await workUntil((all) => all.length >= 2, 20_000);
    expect(work.map((w) => describeWork(w.message)).sort()).toEqual([
      'daemonset:kiada/demo',
      'daemonset:kube-system/fluentd',
    ]);
    expect(await ingressDepth(world.queues.urls.ingressDlq)).toBe(0);
  }, 40_000);

  it('delivers coalesced status refreshes after their window, at most one per window', async () => {
    const fluentd = world.sim.store.get('apps/daemonsets', 'kube-system', 'fluentd');
    const controller = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: 'fluentd',
      uid: String(fluentd?.metadata.uid),
    };
    const ready = (rv: number) =>
      body(WATCH_DETAIL_TYPE, {
        v: 1,
        event: 'MODIFIED',
        kind: 'Pod',
        apiVersion: 'v1',
        name: `fluentd-${rv}`,
        namespace: 'kube-system',
        uid: `p-${rv}`,
        resourceVersion: String(rv),
        controller,
        nodeName: 'worker-1',
        changes: ['ready'],
      });
    await sendMessages(
      world.queues.sqs,
      world.queues.urls.ingress,
      [2001, 2002, 2003, 2004].map((rv) => ({ body: ready(rv) })),
    );
    const work = await workUntil((all) => all.length >= 1, 8_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    work.push(...(await world.drainWork()));
    // Four changes sent together fall in one 2 s window, or straddle two.
    expect(work.length).toBeGreaterThanOrEqual(1);
    expect(work.length).toBeLessThanOrEqual(2);
    for (const w of work) {
      expect(describeWork(w.message)).toBe('daemonset:kube-system/fluentd');
      expect(w.deduplicationId).toMatch(/^status:/);
    }
  });
});

describe('the router handler and a requeue envelope due too far ahead', () => {
  it('refuses it until SQS moves it to the ingress DLQ, forwarding nothing', async () => {
    const message = nodeMessage('worker-2');
    const farAhead = new Date(Date.now() + 30 * 86_400_000);
    const body = formatRequeueEnvelope(message, farAhead);
    const delayedBefore = world.sentToIngress();
    await sendMessages(world.queues.sqs, world.queues.urls.ingress, [{ body }]);
    // maxReceiveCount (5) receives, one visibility timeout (1 s) apart.
    const deadline = Date.now() + 30_000;
    while ((await ingressDepth(world.queues.urls.ingressDlq)) < 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const [letter] =
      (
        await world.queues.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: world.queues.urls.ingressDlq, WaitTimeSeconds: 1 }),
        )
      ).Messages ?? [];
    expect(letter?.Body).toBe(body);
    expect(await ingressDepth(world.queues.urls.ingress)).toBe(0);
    expect(world.sentToIngress()).toBe(delayedBefore);
    expect(await world.drainWork()).toEqual([]);
  }, 60_000);
});

describe('statusRefresh', () => {
  const message = {
    v: 1 as const,
    kind: 'daemonset' as const,
    daemonSet: { namespace: 'ns', name: 'ds', uid: 'uid-1' },
    cause: { type: 'resync' as const, at: '2026-01-01T00:00:00Z' },
  };
  // uid-1's status windows are shifted by its offset: they start here (and every 2 s on).
  const { window, endsAt } = daemonSetWindow('uid-1', Date.parse('2026-01-01T00:00:10.000Z'), 2000);
  const start = endsAt - 2000;
  it.each([
    { name: 'start of a window', at: start, notBefore: start + 2000, id: `status:uid-1:${window}` },
    {
      name: 'end of the same window',
      at: start + 1999,
      notBefore: start + 2000,
      id: `status:uid-1:${window}`,
    },
    { name: 'next window', at: start + 2000, notBefore: start + 4000, id: `status:uid-1:${window + 1}` },
  ])('$name', ({ at, notBefore, id }) => {
    const refresh = statusRefresh(message, new Date(at));
    expect(refresh).toMatchObject({ to: 'delayed', deduplicationId: id });
    expect(refresh.to === 'delayed' && refresh.notBefore.getTime()).toBe(notBefore);
  });

  it('shares its window and id with a DaemonSet step requeued into the same window', () => {
    const now = new Date(start + 700);
    const refresh = statusRefresh(message, now);
    const slot = daemonSetRequeueSlot('uid-1', 0.5, now);
    expect(refresh).toMatchObject({ deduplicationId: slot.deduplicationId });
    expect(refresh.to === 'delayed' && refresh.notBefore.getTime()).toBe(
      now.getTime() + slot.afterSeconds * 1000,
    );
  });

  it('spreads the windows of many DaemonSets over the window instead of ending them together', () => {
    const now = new Date('2026-01-01T00:00:10.000Z');
    const ends = new Set(
      Array.from({ length: 20 }, (_, i) => {
        const refresh = statusRefresh(
          { ...message, daemonSet: { ...message.daemonSet, uid: `uid-${i}` } },
          now,
        );
        return refresh.to === 'delayed' ? refresh.notBefore.getTime() : 0;
      }),
    );
    expect(ends.size).toBeGreaterThan(15);
  });
});
