/**
 * The event path of freed rolling-update slots against the simulated cluster through the real
 * client: while a DaemonSet's status shows old pods left to replace, the relay forwards a pod's
 * turning ready at once, marked `rolloutSlot`, where the same change of a settled DaemonSet's pod
 * is coalesced into its status window; the router then turns the slot triggers, and only those,
 * into a `daemonset` step due at the end of its short slot window.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1DaemonSet, V1DaemonSetStatus, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMONSET_UID_LABEL } from '../../lib/core/daemon-set.ts';
import { isPodReady } from '../../lib/core/pod-availability.ts';
import { createKubePort } from '../../lib/kube/create-kube-port.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/kubeconfig-connection.ts';
import { silentLogger } from '../../lib/log/structured-logger.ts';
import { parseRequeueEnvelope, type RequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import { LocalEventBus } from '../../lib/queue/event-bus-local.ts';
import { Journal } from '../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import { startRelay } from '../../lib/relay/relay.ts';
import { FileCheckpointStore } from '../../lib/relay/relay-checkpoint.ts';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import type { RouterDeps } from '../../lib/router/router-deps.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { CountersInMemory, drain } from '../router/router-harness.ts';
import { aPod } from '../support/builders.ts';
import { eventually, journaledTriggers } from '../support/journal-triggers.ts';
import { newDaemonSet } from '../support/store-test-helpers.ts';

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
  let sim: SimCluster;
  let queues: LocalQueues;
  let dir: string;

  beforeAll(async () => {
    // Pods start and turn ready within 0.2 s.
    sim = await startSimCluster({ nodes: 2, timing: { timeScale: 0.1 } });
    queues = await startLocalQueues({ visibilityTimeoutSeconds: 1 });
    dir = await mkdtemp(join(tmpdir(), 'everynode-relay-slot-'));
  });
  afterAll(async () => {
    await sim.stop();
    await queues.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const kube = () =>
    createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
      managedKind: 'apps/v1',
      userAgent: 'everynode/test',
    });

  /** A DaemonSet whose status is `status`, written as the DaemonSet step writes it. */
  function createDaemonSet(name: string, status: V1DaemonSetStatus): V1DaemonSet {
    sim.store.create('apps/daemonsets', newDaemonSet(name));
    return sim.store.mutate(
      'apps/daemonsets',
      'default',
      name,
      (ds) => {
        ds.status = JSON.parse(JSON.stringify(status));
      },
      { subresource: 'status' },
    ) as unknown as V1DaemonSet;
  }

  function createPodOf(ds: V1DaemonSet, nodeName: string): V1Pod {
    const pod = aPod(`${ds.metadata?.name}-${nodeName}`, {
      owner: ds,
      nodeName,
      labels: { [DAEMONSET_UID_LABEL]: ds.metadata?.uid ?? '' },
    });
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = pod.metadata ?? {};
    const { status: _s, ...creatable } = JSON.parse(JSON.stringify({ ...pod, metadata }));
    return sim.store.create('pods', creatable) as unknown as V1Pod;
  }

  const podIsReady = (name: string) => {
    const pod = sim.store.get('pods', 'default', name) as unknown as V1Pod | undefined;
    return pod !== undefined && isPodReady(pod);
  };

  it('forwards a ready change uncoalesced with rolloutSlot mid-rollout only, and the router steps the DaemonSet within a slot window', async () => {
    const agent = createDaemonSet('agent', rolling);
    const steady = createDaemonSet('steady', settled);
    const journalPath = join(dir, 'journal.jsonl');
    // A frozen clock: every change falls in the same status window, so coalescing is certain.
    const frozen = new Date();
    const relay = await startRelay({
      kube: kube(),
      managedKind: 'apps/v1',
      bus: new LocalEventBus({
        sqs: queues.sqs,
        ingressUrl: queues.urls.ingress,
        journal: new Journal(journalPath),
      }),
      checkpoints: new FileCheckpointStore(join(dir, 'checkpoint.json')),
      logger: silentLogger,
      clock: () => frozen,
      checkpointEveryMs: 100,
    });
    try {
      // The replacement the pair step creates for the old pod the rollout deleted, and a pod of a
      // settled DaemonSet going through the same changes.
      createPodOf(agent, 'worker-1');
      createPodOf(steady, 'worker-1');
      await eventually(
        () => podIsReady('agent-worker-1') && podIsReady('steady-worker-1'),
        (ready) => ready,
      );
      // Pod events come in order on one watch: once a later pod's creation is published (the first
      // of its DaemonSet's window: never coalesced), every change of both pods has been judged.
      createPodOf(createDaemonSet('marker', settled), 'worker-2');
      await eventually(
        () => journaledTriggers(journalPath),
        (seen) => seen.some((s) => s.detail.name === 'marker-worker-2'),
      );
    } finally {
      await relay.stop();
    }
    const seen = (await journaledTriggers(journalPath)).filter((s) => s.detail.kind === 'Pod');
    const ofPod = (name: string) => seen.filter((s) => s.detail.name === name).map((s) => s.detail);

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
    expect(relay.stats.coalesced).toBeGreaterThanOrEqual(1);

    // The router sends the DaemonSet's step, due at the end of its slot window, for the slot
    // trigger only, caused by the pod's event; every pod trigger keeps its status refresh.
    const delayed: RequeueEnvelope[] = [];
    const deps: RouterDeps = {
      kube: kube(),
      managedKind: 'apps/v1',
      work: sqsWorkSender(queues.sqs, queues.urls.work),
      ingress: (messages) => {
        for (const m of messages) {
          const parsed = parseRequeueEnvelope(m.body);
          if (parsed.ok) delayed.push(parsed.envelope);
        }
        return sendMessages(queues.sqs, queues.urls.ingress, messages);
      },
      logger: new Logger({ serviceName: 'everynode-router', logLevel: 'SILENT' }),
      counters: new CountersInMemory(),
      clock: () => new Date(),
    };
    for (const trigger of seen) await routeIngressMessage(trigger.body, deps, new RecentlySent());
    expect(await drain(queues)).toEqual([]);
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
