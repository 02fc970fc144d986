/**
 * Router rules for pod events that free a rolling-update slot (`rolloutSlot`): on top of what any
 * pod event routes, the DaemonSet's `daemonset` step is sent at the end of the short slot window
 * (not the status window's), de-duplicated by that window, unless that window ends with the status
 * window (the status refresh is then that step); one that left every pod of its DaemonSet ready
 * (`settles`) sends the step at once; every other pod event keeps only its status refresh at the
 * end of the status window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonSetWindow, ROLLOUT_SLOT_WINDOW_MS } from '../../lib/messages/daemon-set-window.ts';
import { fifoSafeId } from '../../lib/messages/message-group-id.ts';
import { parseRequeueEnvelope, type RequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import type { OutgoingMessage } from '../../lib/queue/send-messages.ts';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import type { RouterDeps } from '../../lib/router/router-deps.ts';
import { describeWork, fluentdPod, type RouterWorld, startRouterWorld } from './router-harness.ts';

let world: RouterWorld;
/** The delayed messages the router sent to the ingress queue, as sent. */
let delayed: OutgoingMessage[];
let deps: RouterDeps;
const STATUS_WINDOW_MS = 2000;
/**
 * The start of the fluentd DaemonSet's status window holding the test's start (windows are shifted
 * per DaemonSet), which is also the start of its first slot window: the slot windows of one status
 * window are its four quarters, and only the last ends with it.
 */
const slotWindowStart = () =>
  daemonSetWindow(world.fluentdUid, started, STATUS_WINDOW_MS).endsAt - STATUS_WINDOW_MS;
const started = Date.now();
let now = new Date(started);

beforeAll(async () => {
  world = await startRouterWorld();
  deps = {
    ...world.deps,
    clock: () => now,
    ingress: (messages) => {
      delayed.push(...messages);
      return world.deps.ingress(messages);
    },
  };
});
afterAll(async () => world.stop());

const pod = (detail: Record<string, unknown>): string => fluentdPod(world.fluentdUid, detail);

/** The envelopes sent to the ingress queue, in order. */
function envelopes(): RequeueEnvelope[] {
  return delayed.map((m) => {
    const parsed = parseRequeueEnvelope(m.body);
    if (!parsed.ok) throw new Error(`not an envelope: ${m.body}`);
    return parsed.envelope;
  });
}

const at = (ms: number) => new Date(ms).toISOString();
/** When the fluentd DaemonSet's window of `kind` holding `now` ends. */
const windowEnd = (kind: 'status' | 'slot') =>
  at(
    daemonSetWindow(
      world.fluentdUid,
      now.getTime(),
      kind === 'status' ? STATUS_WINDOW_MS : ROLLOUT_SLOT_WINDOW_MS,
    ).endsAt,
  );

interface SlotCase {
  name: string;
  body: () => string;
  work: string[];
  /** The window whose end each delayed DaemonSet step is due at. */
  delayed: ('status' | 'slot')[];
}

const cases: SlotCase[] = [
  {
    name: 'pod turned ready, freeing a slot → daemonset at the slot window end, besides the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], rolloutSlot: true }),
    work: [],
    delayed: ['status', 'slot'],
  },
  {
    name: 'pod seen ready at creation, freeing a slot → daemonset at the slot window end',
    body: () => pod({ event: 'ADDED', nodeName: 'worker-1', rolloutSlot: true }),
    work: [],
    delayed: ['status', 'slot'],
  },
  {
    name: 'pod deleted, freeing a surge slot → pair at once, daemonset at the slot window end',
    body: () => pod({ event: 'DELETED', nodeName: 'worker-1', rolloutSlot: true }),
    work: ['pair:kube-system/fluentd@worker-1'],
    delayed: ['status', 'slot'],
  },
  {
    name: 'pod turned ready (an older relay: no rolloutSlot) → only the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'] }),
    work: [],
    delayed: ['status'],
  },
  {
    name: 'the last pod of its DaemonSet turned ready (settles) → daemonset at once, besides the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], settles: true }),
    work: ['daemonset:kube-system/fluentd'],
    delayed: ['status'],
  },
  {
    name: 'settles false → only the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], settles: false }),
    work: [],
    delayed: ['status'],
  },
  {
    name: 'rolloutSlot false → only the status refresh',
    body: () => pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], rolloutSlot: false }),
    work: [],
    delayed: ['status'],
  },
];

describe('router rules for pod events that free a rolling-update slot', () => {
  it.each(cases)('$name', async ({ body, work, delayed: due }) => {
    delayed = [];
    now = new Date(slotWindowStart() + 100);
    const result = await routeIngressMessage(body(), deps, new RecentlySent());
    const received = await world.drainWork();
    expect(result.type).toBe('routed');
    expect(received.map((r) => describeWork(r.message)).sort()).toEqual(work);
    expect(envelopes().map((e) => [e.notBefore, e.message.kind, describeWork(e.message)])).toEqual(
      due.map((kind) => [windowEnd(kind), 'daemonset', 'daemonset:kube-system/fluentd']),
    );
  });

  it('sends one step per DaemonSet and slot window, de-duplicated by the window', async () => {
    const recent = new RecentlySent();
    const ready = (resourceVersion: string, ms: number) => {
      now = new Date(slotWindowStart() + ms);
      const body = pod({
        event: 'MODIFIED',
        nodeName: 'worker-1',
        changes: ['ready'],
        rolloutSlot: true,
        resourceVersion,
      });
      return routeIngressMessage(body, deps, recent);
    };
    delayed = [];
    // Two pods ready in one slot window, a third in the next.
    await ready('6001', 100);
    await ready('6002', 300);
    await ready('6003', ROLLOUT_SLOT_WINDOW_MS + 100);
    const slots = envelopes().filter((e) => e.deduplicationId?.startsWith('slot:'));
    const { window } = daemonSetWindow(world.fluentdUid, slotWindowStart() + 100, ROLLOUT_SLOT_WINDOW_MS);
    expect(slots.map((e) => [e.notBefore, e.deduplicationId, e.message.cause])).toEqual([
      [
        at(slotWindowStart() + ROLLOUT_SLOT_WINDOW_MS),
        fifoSafeId(`slot:${world.fluentdUid}:${window}`),
        { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '6001' },
      ],
      [
        at(slotWindowStart() + 2 * ROLLOUT_SLOT_WINDOW_MS),
        fifoSafeId(`slot:${world.fluentdUid}:${window + 1}`),
        { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '6003' },
      ],
    ]);
    expect(slots[0]?.message).toMatchObject({
      kind: 'daemonset',
      daemonSet: { namespace: 'kube-system', name: 'fluentd', uid: world.fluentdUid },
    });
    // The window's step reaches the work queue, in the DaemonSet's FIFO group, once it is due.
    now = new Date();
    delayed = [];
    for (const m of [slots[0], slots[0]])
      await routeIngressMessage(JSON.stringify({ ...m, notBefore: at(Date.now() - 1) }), deps, recent);
    const received = await world.drainWork();
    expect(received.map((r) => [r.groupId, r.deduplicationId])).toEqual([
      ['ds:kube-system/fluentd', fifoSafeId(`slot:${world.fluentdUid}:${window}`)],
    ]);
  });

  it('sends no slot step of its own in the slot window that ends with the status window', async () => {
    delayed = [];
    now = new Date(slotWindowStart() + STATUS_WINDOW_MS - ROLLOUT_SLOT_WINDOW_MS + 100);
    const body = pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], rolloutSlot: true });
    await routeIngressMessage(body, deps, new RecentlySent());
    await world.drainWork();
    const { window } = daemonSetWindow(world.fluentdUid, now.getTime(), STATUS_WINDOW_MS);
    expect(envelopes().map((e) => [e.notBefore, e.deduplicationId])).toEqual([
      [at(slotWindowStart() + STATUS_WINDOW_MS), fifoSafeId(`status:${world.fluentdUid}:${window}`)],
    ]);
  });

  it('sends one step per window when the changes of that window are routed at once', async () => {
    const recent = new RecentlySent();
    delayed = [];
    now = new Date(slotWindowStart() + 100);
    // A batch's records are routed concurrently: each checks before any send has finished.
    const bodies = ['7001', '7002', '7003'].map((resourceVersion) =>
      pod({
        event: 'MODIFIED',
        nodeName: 'worker-1',
        changes: ['ready'],
        rolloutSlot: true,
        resourceVersion,
      }),
    );
    await Promise.all(bodies.map((body) => routeIngressMessage(body, deps, recent)));
    await world.drainWork();
    expect(envelopes().map((e) => e.deduplicationId?.split(':')[0])).toEqual(['status', 'slot']);
  });

  it('sends the step again for the next change of its window when the first send failed', async () => {
    const recent = new RecentlySent();
    delayed = [];
    now = new Date(slotWindowStart() + 100);
    const body = pod({ event: 'MODIFIED', nodeName: 'worker-1', changes: ['ready'], rolloutSlot: true });
    const failing: RouterDeps = {
      ...deps,
      ingress: async () => {
        throw new Error('the ingress queue is unreachable');
      },
    };
    await expect(routeIngressMessage(body, failing, recent)).rejects.toThrow('unreachable');
    await routeIngressMessage(body, deps, recent);
    await world.drainWork();
    expect(envelopes().map((e) => e.deduplicationId?.split(':')[0])).toEqual(['status', 'slot']);
  });
});
