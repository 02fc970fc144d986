/**
 * The event path of a DaemonSet's last pod turning ready, against the simulated cluster through the
 * real client: while the DaemonSet's status still counts a node not ready, the relay forwards the
 * change that leaves all its pods ready, uncoalesced and marked `settles`, and the router sends
 * the DaemonSet's step at once; a pod turning ready while another of its DaemonSet is still
 * starting, or of a DaemonSet whose status already counts every node ready, is coalesced as before.
 */
import type { V1DaemonSetStatus } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecentlySent, routeIngressMessage } from '../../../lib/router/router.ts';
import { podTriggers } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';

/** As the DaemonSet step writes it while its pods start: 2 nodes, none ready yet. */
const starting: V1DaemonSetStatus = {
  observedGeneration: 1,
  desiredNumberScheduled: 2,
  currentNumberScheduled: 2,
  updatedNumberScheduled: 2,
  numberReady: 0,
  numberAvailable: 0,
  numberUnavailable: 2,
  numberMisscheduled: 0,
};
const ready: V1DaemonSetStatus = { ...starting, numberReady: 2, numberAvailable: 2, numberUnavailable: 0 };

describe('a DaemonSet settling: relay → router against the simulated cluster', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    // Pods start and turn ready within 0.2 s.
    world = await startRelayWorld({ nodes: 2, timeScale: 0.1, visibilityTimeoutSeconds: 1 });
  });
  afterAll(() => world?.stop());

  it('forwards the change leaving every pod ready with settles, and the router steps the DaemonSet at once', async () => {
    const agent = world.createDaemonSet('agent', starting);
    const steady = world.createDaemonSet('steady', ready);
    const { triggers, stats } = await world.relayFrozenWhile('journal', async () => {
      world.createPodOf(agent, 'worker-1');
      world.createPodOf(agent, 'worker-ssd');
      world.createPodOf(steady, 'worker-1');
      await world.untilReady('agent-worker-1', 'agent-worker-ssd', 'steady-worker-1');
    });
    const { seen, ofPod } = podTriggers(triggers);

    // Of the agent pods' two readiness changes, the first came while the other pod was not ready
    // yet and was coalesced into the window; the second left both ready and is forwarded, settling.
    const turnedReady = seen.filter(
      (s) => s.detail.name.startsWith('agent-') && s.detail.changes?.includes('ready') === true,
    );
    expect(turnedReady.map((s) => [s.detail.event, s.detail.settles])).toEqual([['MODIFIED', true]]);
    expect(stats.coalesced).toBeGreaterThanOrEqual(1);
    // The DaemonSet whose status counts every node ready: only its pod's creation was forwarded.
    expect(ofPod('steady-worker-1').map((d) => [d.event, d.settles === true])).toEqual([['ADDED', false]]);

    // The router sends the DaemonSet's step at once for the settling trigger, and only for it.
    const router = world.router();
    for (const trigger of seen) await routeIngressMessage(trigger.body, router.deps, new RecentlySent());
    const work = await world.drainWork();
    expect(
      work.map((w) => [w.message.kind, (w.message as { daemonSet?: { name: string } }).daemonSet?.name]),
    ).toEqual([['daemonset', 'agent']]);
  });
});
