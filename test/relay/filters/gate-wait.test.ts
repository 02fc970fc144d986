/**
 * The relay's gate-wait timers (docs/design.md, 26. Node readiness gates): a node bootstrapping
 * behind a gate taint, without the DaemonSetsReady condition, gets one `node` trigger (timer
 * `gate-wait`, with its hints) when its grace ends — none when it is released, shows the
 * condition, is gone, or carries a key no DaemonSet gates. First the timers on a real relay
 * context, then a real relay against the simulated cluster with the real 10 s grace, and the
 * router's de-duplication of its triggers on the real FIFO work queue.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAITING_SHOWN_AFTER_SECONDS } from '../../../lib/core/node-gates/gate-condition.ts';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
} from '../../../lib/core/node-gates/gate-decision.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_DRY_RUN_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import type { WatchEventDetail } from '../../../lib/messages/trigger.ts';
import type { BusEvent } from '../../../lib/queue/event-bus.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { GateWaitTimers } from '../../../lib/relay/filters/gate-wait.ts';
import { RecentlySent, routeIngressMessage } from '../../../lib/router/router.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { eventually, type JournaledTrigger } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

const LATE_KEY = 'example.com/late-not-ready';
const OTHER_KEY = 'example.com/not-a-gate';
const GRACE_MS = WAITING_SHOWN_AFTER_SECONDS * 1000;

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const gating = (annotations: Record<string, string> = {}) => ({
  [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
  ...annotations,
});

describe('GateWaitTimers on a relay context', () => {
  const minuteAgo = () => new Date(Date.now() - 60_000);
  const tainted = (name: string, key = DEFAULT_GATE_TAINT_KEY, creationTimestamp = minuteAgo()) =>
    aNode(name, { taints: [{ key, effect: 'NoSchedule' }], creationTimestamp });

  function timersOver(daemonSets: V1DaemonSet[], nodes: V1Node[]) {
    const context = new RelayNodeContext();
    const published: { event: BusEvent | undefined; urgent: boolean | undefined }[] = [];
    const controller = new AbortController();
    const timers = new GateWaitTimers({
      context,
      publisher: { add: (event, _r, _v, urgent) => published.push({ event, urgent }) },
      clock: () => new Date(),
      signal: controller.signal,
    });
    context.seed('nodes', nodes);
    timers.seeded('nodes', nodes);
    context.seed('daemonsets', daemonSets);
    timers.seeded('daemonsets', daemonSets);
    const details = () => published.map((p) => p.event?.detail as WatchEventDetail);
    return { context, timers, published, details, controller };
  }

  it('sends at once, urgent and with hints, the step of a node a starting relay finds waiting past its grace', async () => {
    const agent = aDaemonSet('agent', { annotations: gating() });
    const { published, details, timers } = timersOver([agent], [tainted('wait-1'), aNode('open-1')]);
    await tick();
    expect(details()).toMatchObject([
      {
        v: 1,
        event: 'MODIFIED',
        kind: 'Node',
        apiVersion: 'v1',
        name: 'wait-1',
        uid: 'uid-node-wait-1',
        resourceVersion: '1',
        timer: 'gate-wait',
        hints: { node: { name: 'wait-1' }, daemonSets: [{ uid: 'uid-ds-agent' }] },
      },
    ]);
    expect(published[0]?.urgent).toBe(true);
    // Once per wait: the same node seen again (a relist) is not sent again.
    timers.seeded('nodes', [tainted('wait-1'), aNode('open-1')]);
    await tick();
    expect(details()).toHaveLength(1);
  });

  it('times no node released from a BootstrapOnly key, shown the condition, or tainted with a key no DaemonSet (being deleted or not) gates', async () => {
    const released = tainted('released-1');
    released.metadata = {
      ...released.metadata,
      annotations: { [GATE_RELEASED_ANNOTATION]: JSON.stringify({ [DEFAULT_GATE_TAINT_KEY]: 'x' }) },
    };
    const shown = tainted('shown-1');
    shown.status = {
      conditions: [{ type: DAEMONSETS_READY_CONDITION, status: 'False', reason: 'WaitingForDaemonSets' }],
    };
    const deleting = aDaemonSet('deleting', {
      annotations: gating({ [NODE_READINESS_TAINT_KEY_ANNOTATION]: LATE_KEY }),
    });
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: new Date() };
    const agent = aDaemonSet('agent', { annotations: gating() });
    const { details, timers } = timersOver(
      [agent, deleting],
      [released, shown, tainted('other-1', OTHER_KEY), tainted('late-1', LATE_KEY)],
    );
    await tick();
    expect(details()).toEqual([]);
    expect(timers.pending).toBe(0);
  });

  it('times a node released from a key that is Continuous now, and one whose key only a dry run gates', async () => {
    const released = tainted('released-1');
    released.metadata = {
      ...released.metadata,
      annotations: { [GATE_RELEASED_ANNOTATION]: JSON.stringify({ [DEFAULT_GATE_TAINT_KEY]: 'x' }) },
    };
    const cni = aDaemonSet('cni', { annotations: { [NODE_READINESS_ANNOTATION]: 'Continuous' } });
    const dry = aDaemonSet('dry', {
      annotations: gating({
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: LATE_KEY,
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'true',
      }),
    });
    const { details } = timersOver([cni, dry], [released, tainted('dry-1', LATE_KEY)]);
    await tick();
    expect(
      details()
        .map((d) => d.name)
        .sort(),
    ).toEqual(['dry-1', 'released-1']);
  });

  it('times a node that joined before its gate was declared, and clears its timer when the gate goes', async () => {
    const { context, timers, details } = timersOver([], [tainted('late-1', LATE_KEY, new Date())]);
    expect(timers.pending).toBe(0);
    const late = aDaemonSet('late', {
      annotations: gating({ [NODE_READINESS_TAINT_KEY_ANNOTATION]: LATE_KEY }),
    });
    context.observe('daemonsets', { type: 'ADDED', object: late, resourceVersion: '2' });
    timers.observed('daemonsets', { type: 'ADDED', object: late, resourceVersion: '2' });
    expect(timers.pending).toBe(1);
    context.observe('daemonsets', { type: 'DELETED', object: late, resourceVersion: '3' });
    timers.observed('daemonsets', { type: 'DELETED', object: late, resourceVersion: '3' });
    expect(timers.pending).toBe(0);
    expect(details()).toEqual([]);
  });

  it('clears every timer when the relay stops, and arms none after', async () => {
    const agent = aDaemonSet('agent', { annotations: gating() });
    const { context, timers, details, controller } = timersOver(
      [agent],
      [tainted('new-1', undefined, new Date())],
    );
    expect(timers.pending).toBe(1);
    controller.abort();
    expect(timers.pending).toBe(0);
    const node = tainted('new-2');
    context.observe('nodes', { type: 'ADDED', object: node, resourceVersion: '5' });
    timers.observed('nodes', { type: 'ADDED', object: node, resourceVersion: '5' });
    await tick();
    expect(timers.pending).toBe(0);
    expect(details()).toEqual([]);
  });
});

describe('the relay times nodes waiting on their gate, against the simulated cluster', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld({ nodes: 0, timeScale: 0.1, visibilityTimeoutSeconds: 1 });
  });
  afterAll(() => world?.stop());

  const timed = async (name: string) =>
    (await world.triggers(name)).filter(
      (j) => j.detailType === 'Kubernetes Watch Event' && j.detail.timer === 'gate-wait',
    );
  const joinTainted = (name: string, key: string, status?: V1Node['status']) =>
    world.sim.nodes.add({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
      spec: { taints: [{ key, effect: 'NoSchedule' }] },
      ...(status ? { status } : {}),
    });

  it('sends one node step per waiting node when its grace ends, with its hints, and a starting relay sends them at once', async () => {
    const agent = world.sim.store.create(
      'apps/daemonsets',
      newDaemonSet('agent', { annotations: gating() }),
    ) as unknown as V1DaemonSet;
    const relay = await world.relay('first');
    let first: JournaledTrigger[];
    try {
      joinTainted('wait-1', DEFAULT_GATE_TAINT_KEY);
      joinTainted('released-1', DEFAULT_GATE_TAINT_KEY);
      joinTainted('gone-1', DEFAULT_GATE_TAINT_KEY);
      joinTainted('other-1', OTHER_KEY);
      joinTainted('late-1', LATE_KEY);
      joinTainted('shown-1', DEFAULT_GATE_TAINT_KEY, {
        conditions: [{ type: DAEMONSETS_READY_CONDITION, status: 'False', reason: 'WaitingForDaemonSets' }],
      });
      // The gating pod on wait-1 crash-loops: it never becomes ready.
      world.createPodOf(agent, 'wait-1', { image: 'everynode.dev/sim:crashloop' });
      await tick(1_000);
      world.sim.nodes.untaint('released-1', DEFAULT_GATE_TAINT_KEY);
      world.sim.nodes.remove('gone-1');
      // A gate declared after late-1 joined times it too.
      world.sim.store.create(
        'apps/daemonsets',
        newDaemonSet('late', { annotations: gating({ [NODE_READINESS_TAINT_KEY_ANNOTATION]: LATE_KEY }) }),
      );
      await eventually(
        () => timed('first'),
        (seen) => seen.length >= 2,
        GRACE_MS + 5_000,
      );
      await tick(1_500);
      first = await timed('first');
    } finally {
      await relay.stop();
    }
    expect(first.map((j) => j.detail.name).sort()).toEqual(['late-1', 'wait-1']);
    for (const j of first) {
      const created = Date.parse(String(world.sim.nodes.get(j.detail.name)?.metadata?.creationTimestamp));
      // creationTimestamp has whole seconds: the grace counts from the second the node was created in.
      expect(j.time - created).toBeGreaterThanOrEqual(GRACE_MS);
      expect(j.time - created).toBeLessThan(GRACE_MS + 1_500);
      console.log(`relay-gate-wait: ${j.detail.name} created → gate-wait trigger ${j.time - created} ms`);
    }
    const wait = first.find((j) => j.detail.name === 'wait-1')?.detail;
    const node = world.sim.nodes.get('wait-1');
    expect(wait).toMatchObject({
      event: 'MODIFIED',
      kind: 'Node',
      uid: node?.metadata?.uid,
      resourceVersion: node?.metadata?.resourceVersion,
    });
    expect(wait?.hints?.node).toMatchObject({ name: 'wait-1', taints: [{ key: DEFAULT_GATE_TAINT_KEY }] });
    expect(wait?.hints?.daemonSets.map((ds) => ds.uid)).toContain(agent.metadata?.uid);
    expect(wait?.hints?.pods).toMatchObject([{ name: 'agent-wait-1', ready: false }]);
    const crashing = world.sim.store.get('pods', 'default', 'agent-wait-1') as unknown as V1Pod;
    expect(crashing.status?.containerStatuses?.[0]?.restartCount ?? 0).toBeGreaterThan(0);

    // A relay that starts while they still wait (no step showed them) sends them at once.
    const startedAt = Date.now();
    const second = await world.relay('second');
    try {
      await eventually(
        () => timed('second'),
        (seen) => seen.length >= 2,
        2_000,
      );
    } finally {
      await second.stop();
    }
    const again = await timed('second');
    expect(again.map((j) => j.detail.name).sort()).toEqual(['late-1', 'wait-1']);
    expect(Math.max(...again.map((j) => j.time)) - startedAt).toBeLessThan(2_000);

    // The router: the timer's trigger is never a duplicate of the node's watch event of the same
    // version; two relays' triggers of it for one version are.
    const { deps } = world.router();
    const timerBody = JSON.parse(first.find((j) => j.detail.name === 'wait-1')?.body ?? '{}');
    const { timer: _t, ...watchDetail } = timerBody.detail;
    const bodies = [
      timerBody,
      { ...timerBody, id: 'watch-event-of-the-same-version', detail: watchDetail },
      { ...timerBody, id: 'another-relays-timer' },
    ];
    await world.drainWork();
    const recent = new RecentlySent();
    for (const body of bodies) await routeIngressMessage(JSON.stringify(body), deps, recent);
    const work = (await world.drainWork()).filter((w) => w.message.kind === 'node');
    expect(work.map((w) => [w.groupId, w.message.cause])).toEqual([
      [
        'node:wait-1',
        {
          type: 'watch',
          event: 'MODIFIED',
          kind: 'Node',
          resourceVersion: wait?.resourceVersion,
          timer: 'gate-wait',
        },
      ],
      [
        'node:wait-1',
        { type: 'watch', event: 'MODIFIED', kind: 'Node', resourceVersion: wait?.resourceVersion },
      ],
    ]);
    expect(work[0]?.message).toMatchObject({ node: { name: 'wait-1' }, hints: wait?.hints });
  }, 30_000);
});
