/**
 * The event path of freed rolling-update slots against the simulated cluster through the real
 * client: while a DaemonSet's status shows old pods left to replace, the relay forwards a pod's
 * turning ready at once, marked `rolloutSlot`, where the same change of a settled DaemonSet's pod
 * is coalesced into its status window; the router then turns the slot triggers, and only those,
 * into a `daemonset` step due at the end of its short slot window.
 */
import type { V1DaemonSetStatus } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonSetWindow, STATUS_WINDOW_SECONDS } from '../../../lib/messages/daemon-set-window.ts';
import type { RequeueEnvelope } from '../../../lib/messages/requeue-envelope.ts';
import { RecentlySent, routeIngressMessage } from '../../../lib/router/router.ts';
import { podTriggers } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';

/** As the DaemonSet step writes it mid-rollout: 2 nodes, both still on the old revision. */
const rolling: V1DaemonSetStatus = {
  observedGeneration: 1,
  desiredNumberScheduled: 2,
  currentNumberScheduled: 2,
  updatedNumberScheduled: 0,
  numberReady: 1,
  numberAvailable: 1,
  numberUnavailable: 1,
  numberMisscheduled: 0,
};
/** Every node on the current revision and available. */
const settled: V1DaemonSetStatus = {
  ...rolling,
  updatedNumberScheduled: 2,
  numberReady: 2,
  numberAvailable: 2,
  numberUnavailable: 0,
};

describe('freed rolling-update slots: relay → router against the simulated cluster', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    // Pods start and turn ready within 0.2 s.
    world = await startRelayWorld({ nodes: 2, timeScale: 0.1, visibilityTimeoutSeconds: 1 });
  });
  afterAll(() => world?.stop());

  it('forwards a ready change uncoalesced with rolloutSlot mid-rollout only, and the router steps the DaemonSet within a slot window', async () => {
    const agent = world.createDaemonSet('agent', rolling);
    const steady = world.createDaemonSet('steady', settled);
    const { triggers, stats } = await world.relayFrozenWhile('journal', async () => {
      // The replacement the pair step creates for the old pod the rollout deleted, and a pod of a
      // settled DaemonSet going through the same changes.
      world.createPodOf(agent, 'worker-1');
      world.createPodOf(steady, 'worker-1');
      await world.untilReady('agent-worker-1', 'steady-worker-1');
    });
    const { seen, ofPod } = podTriggers(triggers);

    // Created not ready: no slot; then its readiness (with running in one update or not, as the
    // kubelet's timers fall), forwarded although its window is taken, marked as freeing a slot.
    const replacement = ofPod('agent-worker-1');
    expect(replacement[0]).toMatchObject({ event: 'ADDED' });
    expect(replacement[0]?.rolloutSlot).toBeUndefined();
    const turnedReady = replacement.filter((d) => d.changes?.includes('ready'));
    expect(turnedReady.map((d) => [d.event, d.rolloutSlot])).toEqual([['MODIFIED', true]]);
    expect(replacement.filter((d) => d.rolloutSlot)).toEqual(turnedReady);

    // The settled DaemonSet's pod went through the same changes; only its creation was forwarded.
    expect(ofPod('steady-worker-1').map((d) => [d.event, d.rolloutSlot === true])).toEqual([
      ['ADDED', false],
    ]);
    expect(stats.coalesced).toBeGreaterThanOrEqual(1);

    // The router sends the DaemonSet's step, due at the end of its slot window, for the slot
    // trigger only, caused by the pod's event; every pod trigger keeps its status refresh.
    // Routed early in the DaemonSet's status window: the slot windows of its last quarter end with
    // it, and there the status refresh is the slot step (router-rollout-slot.test.ts).
    const router = world.router();
    const statusWindowStart =
      daemonSetWindow(agent.metadata?.uid ?? '', Date.now(), STATUS_WINDOW_SECONDS * 1000).endsAt -
      STATUS_WINDOW_SECONDS * 1000;
    const deps = { ...router.deps, clock: () => new Date(statusWindowStart + 100) };
    const { delayed } = router;
    for (const trigger of seen) await routeIngressMessage(trigger.body, deps, new RecentlySent());
    expect(await world.drainWork()).toEqual([]);
    const isSlot = (e: RequeueEnvelope) => e.deduplicationId?.startsWith('slot:') === true;
    expect(delayed.filter((e) => !isSlot(e))).toHaveLength(seen.length);
    const slots = delayed.filter(isSlot);
    expect(slots.map((e) => e.message)).toMatchObject([
      {
        kind: 'daemonset',
        daemonSet: { namespace: 'default', name: 'agent', uid: agent.metadata?.uid },
        cause: {
          type: 'watch',
          event: 'MODIFIED',
          kind: 'Pod',
          resourceVersion: turnedReady[0]?.resourceVersion,
        },
      },
    ]);
  });
});
