/**
 * The event path of node readiness gates against the simulated cluster through the real client:
 * the relay forwards every readiness change of a gating DaemonSet's pod at once, marked
 * `gatesNode` and with its node's hints, while the same changes of another DaemonSet's pod are
 * coalesced into their status window; the router then turns the gating triggers, and only those,
 * into `node` work for the pod's node on the real FIFO work queue.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { RecentlySent, routeIngressMessage } from '../../../lib/router/router.ts';
import { eventually, podTriggers } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

describe('node readiness gates: relay → router against the simulated cluster', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    // Pods start and turn ready within 0.2 s, so every change of a pod falls in one status window.
    world = await startRelayWorld({ nodes: 2, timeScale: 0.1, visibilityTimeoutSeconds: 1 });
  });
  afterAll(() => world?.stop());

  function createDaemonSet(name: string, annotations?: Record<string, string>): V1DaemonSet {
    return world.sim.store.create(
      'apps/daemonsets',
      newDaemonSet(name, annotations ? { annotations } : {}),
    ) as unknown as V1DaemonSet;
  }

  it("forwards a gating pod's readiness changes uncoalesced with gatesNode, and the router sends its node step", async () => {
    const cni = createDaemonSet('cni', { [NODE_READINESS_ANNOTATION]: 'Continuous' });
    const logs = createDaemonSet('logs');
    // A frozen clock: every change falls in the same status window, so coalescing is certain.
    const frozen = new Date();
    const relay = await world.relay('journal', { clock: () => frozen });
    try {
      world.createPodOf(logs, 'worker-1');
      world.createPodOf(cni, 'worker-1');
      await world.untilReady('logs-worker-1', 'cni-worker-1');
      // Pod events come in order on one watch: once the gating pod's removal is published, every
      // earlier change of both pods has been judged. The delete is graceful: terminating, then gone.
      world.sim.store.delete('pods', 'default', 'cni-worker-1');
      await eventually(
        () => world.triggers('journal'),
        (seen) => seen.some((s) => s.detail.name === 'cni-worker-1' && s.detail.event === 'DELETED'),
      );
    } finally {
      await relay.stop();
    }
    const { seen, ofPod } = podTriggers(await world.triggers('journal'));

    const gating = ofPod('cni-worker-1');
    // Created not ready: no gate changes; running but not ready neither (coalesced into its window
    // when an update of its own). Then ready (with running in one update or not, as the kubelet's
    // timers fall), terminating and gone: each forwarded at once, marked as gating its node.
    expect(gating[0]).toMatchObject({ event: 'ADDED' });
    expect(gating[0]?.gatesNode).toBeUndefined();
    const rest = gating.slice(1);
    expect(rest.map((d) => [d.event, d.gatesNode])).toEqual(
      rest.map((d) => [d.event === 'DELETED' ? 'DELETED' : 'MODIFIED', true]),
    );
    expect(rest.filter((d) => d.changes?.join() === 'phase')).toEqual([]);
    expect(rest.flatMap((d) => d.changes ?? []).filter((c) => c !== 'phase')).toEqual(['ready', 'deleting']);
    expect(rest.at(-1)?.event).toBe('DELETED');
    const turnedReady = rest.find((d) => d.changes?.includes('ready'));
    expect(turnedReady?.hints?.node.name).toBe('worker-1');
    // Every everynode pod on the node, as the node step plans from them.
    expect(
      turnedReady?.hints?.pods.map((p) => [p.name, p.name === 'cni-worker-1' ? p.ready : 'any']).sort(),
    ).toEqual([
      ['cni-worker-1', true],
      ['logs-worker-1', 'any'],
    ]);
    expect(turnedReady?.hints?.daemonSets.map((ds) => ds.uid).sort()).toEqual(
      [cni.metadata?.uid, logs.metadata?.uid].sort(),
    );
    expect(turnedReady?.pairHints?.pods).toMatchObject([{ name: 'cni-worker-1', ready: true }]);

    // The non-gating pod went through the same changes; only its creation was forwarded.
    expect(world.podIsReady('logs-worker-1')).toBe(true);
    expect(ofPod('logs-worker-1').map((d) => [d.event, d.gatesNode === true])).toEqual([['ADDED', false]]);
    expect(relay.stats.coalesced).toBeGreaterThanOrEqual(1);
    expect(relay.stats.gating).toBe(rest.length);

    // The router turns exactly the gating triggers into node work, in the node's FIFO group.
    const { deps } = world.router();
    const recent = new RecentlySent();
    for (const trigger of seen) await routeIngressMessage(trigger.body, deps, recent);
    const work = await world.drainWork();
    const nodeWork = work.filter((w) => w.message.kind === 'node');
    expect(nodeWork.map((w) => [w.groupId, w.message.cause])).toEqual(
      gating
        .filter((d) => d.gatesNode)
        .map((d) => [
          'node:worker-1',
          { type: 'watch', event: d.event, kind: 'Pod', resourceVersion: d.resourceVersion },
        ]),
    );
    const readyWork = nodeWork.find(
      (w) =>
        w.message.cause.type === 'watch' && w.message.cause.resourceVersion === turnedReady?.resourceVersion,
    );
    expect(readyWork?.message).toMatchObject({
      kind: 'node',
      node: { name: 'worker-1' },
      hints: turnedReady?.hints,
    });
    // The terminating and the deleted pod need their pair made right too, as without a gate.
    expect(work.filter((w) => w.message.kind === 'pair').map((w) => w.groupId)).toEqual([
      'pair:default/cni/worker-1',
      'pair:default/cni/worker-1',
    ]);
  });
  it('a BootstrapOnly gating pod gates its node only while the node carries the gate taint', async () => {
    // A key of its own: cni gates the default key Continuous, which moves on every node.
    const key = 'example.com/boot-not-ready';
    const boot = createDaemonSet('boot', {
      [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
      [NODE_READINESS_TAINT_KEY_ANNOTATION]: key,
    });
    world.sim.nodes.add('joining-1', { taints: [{ key, effect: 'NoSchedule' }] });
    const frozen = new Date();
    const relay = await world.relay('bootstrap', { clock: () => frozen });
    try {
      // worker-ssd was never gated (no taint): its gating pod's readiness moves no gate.
      world.createPodOf(boot, 'worker-ssd');
      world.createPodOf(boot, 'joining-1');
      await world.untilReady('boot-worker-ssd', 'boot-joining-1');
      await eventually(
        () => world.triggers('bootstrap'),
        (seen) => seen.some((s) => s.detail.name === 'boot-joining-1' && s.detail.changes?.includes('ready')),
      );
      // Pod events come in order on one watch: once a later pod's creation is published (the first
      // of its DaemonSet's window: never coalesced), every change of both pods has been judged.
      world.createPodOf(createDaemonSet('marker'), 'worker-1');
      await eventually(
        () => world.triggers('bootstrap'),
        (seen) => seen.some((s) => s.detail.name === 'marker-worker-1'),
      );
    } finally {
      await relay.stop();
    }
    const { ofPod } = podTriggers(await world.triggers('bootstrap'));
    expect(ofPod('boot-worker-ssd').map((d) => [d.event, d.gatesNode === true])).toEqual([['ADDED', false]]);
    const joining = ofPod('boot-joining-1');
    const turnedReady = joining.find((d) => d.changes?.includes('ready'));
    expect(turnedReady?.gatesNode).toBe(true);
    expect(turnedReady?.hints?.node.name).toBe('joining-1');
    expect(relay.stats.gating).toBe(joining.filter((d) => d.gatesNode).length);
  });
});
