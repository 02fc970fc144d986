/**
 * A real relay against the simulated cluster, for the relay tests that watch what it publishes:
 * the cluster, the pipeline's queues on fauxqs, relays journaling into a temp dir of their own, and
 * the router's deps over the same queues, so a test can route what the relay published.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1DaemonSet, V1DaemonSetStatus, V1Pod } from '@kubernetes/client-node';
import { DAEMONSET_UID_LABEL } from '../../lib/core/daemon-set.ts';
import { isPodReady } from '../../lib/core/pod-availability.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { silentLogger } from '../../lib/log/structured-logger.ts';
import { parseRequeueEnvelope, type RequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import { LocalEventBus } from '../../lib/queue/event-bus-local.ts';
import { Journal } from '../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import { FileCheckpointStore } from '../../lib/relay/run/checkpoint.ts';
import { type Relay, type RelayOptions, startRelay } from '../../lib/relay/run/relay.ts';
import type { RouterDeps } from '../../lib/router/router-deps.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { CountersInMemory, drain, type ReceivedWork } from '../router/router-harness.ts';
import { eventually, type JournaledTrigger, journaledTriggers } from './journal-triggers.ts';
import { newDaemonSet, newPod } from './store-test-helpers.ts';

/** Options of {@link startRelayWorld}. */
export interface RelayWorldOptions {
  /** The simulated cluster's nodes at start: a count of its seed nodes. */
  readonly nodes: number;
  /** The simulated cluster's pace (0.1: pods start and turn ready within 0.2 s); omitted, real speed. */
  readonly timeScale?: number;
  /** The queues' visibility timeout; omitted, the queues' own default. */
  readonly visibilityTimeoutSeconds?: number;
}

/** The router's deps over the world's queues, with the delayed work it sent back to ingress. */
export interface RouterAtWork {
  readonly deps: RouterDeps;
  /** Every requeue envelope the router has sent to the ingress queue so far, in order. */
  readonly delayed: RequeueEnvelope[];
}

/** A running relay world; {@link RelayWorld.stop} stops all of it. */
export interface RelayWorld {
  readonly sim: SimCluster;
  readonly queues: LocalQueues;
  /** The world's own temp dir: every relay's journal and checkpoint. */
  readonly dir: string;
  /** A fresh kube port to the simulated cluster through the real client. */
  kube(): KubePort;
  /**
   * Starts a relay that journals to `<name>.jsonl` and checkpoints to `<name>-checkpoint.json`:
   * a relay started again under one name resumes from that checkpoint and appends to that journal.
   */
  relay(name: string, options?: Pick<RelayOptions, 'clock'>): Promise<Relay>;
  /**
   * Runs relay `name` on a frozen clock (every change falls in one status window, so coalescing is
   * certain) while `act` runs, and until a marker pod created after it is published: pod events
   * come in order on one watch, and a DaemonSet's first change of a window is never coalesced, so
   * every change `act` made has been judged by then. Resolves to what the relay published, and
   * its counts.
   */
  relayFrozenWhile(
    name: string,
    act: () => Promise<void>,
  ): Promise<{ triggers: JournaledTrigger[]; stats: Relay['stats'] }>;
  /** What the relay `name` published so far, in order. */
  triggers(name: string): Promise<JournaledTrigger[]>;
  /** The router's deps, with fresh counters, over the world's queues. */
  router(): RouterAtWork;
  /** Receives and deletes everything on the work queue. */
  drainWork(): Promise<ReceivedWork[]>;
  /** Creates DaemonSet `name` in namespace default with `status` written as its step writes it. */
  createDaemonSet(name: string, status: V1DaemonSetStatus): V1DaemonSet;
  /**
   * Creates the pod of `ds` on `nodeName` as the pair step does (named `<ds>-<node>` unless
   * `name` is given; `image` as its only container's image when given).
   */
  createPodOf(ds: V1DaemonSet, nodeName: string, options?: { name?: string; image?: string }): V1Pod;
  /** Whether pod `name` of namespace default exists and is ready. */
  podIsReady(name: string): boolean;
  /** Resolves once every pod named (of namespace default) is ready; rejects after 10 s. */
  untilReady(...names: string[]): Promise<void>;
  /** Stops every relay still running, the queues and the cluster, then removes the temp dir. */
  stop(): Promise<void>;
}

/** Starts the simulated cluster and the queues in a temp dir of their own; relays start on demand. */
export async function startRelayWorld(options: Readonly<RelayWorldOptions>): Promise<RelayWorld> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    const failures: unknown[] = [];
    for (const stopOne of stops.splice(0).reverse()) await stopOne().catch((error) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
  try {
    const dir = await mkdtemp(join(tmpdir(), 'everynode-relay-world-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const timing = options.timeScale === undefined ? {} : { timing: { timeScale: options.timeScale } };
    const sim = await startSimCluster({ nodes: options.nodes, ...timing });
    stops.push(() => sim.stop());
    const queues = await startLocalQueues(
      options.visibilityTimeoutSeconds === undefined
        ? {}
        : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds },
    );
    stops.push(() => queues.stop());
    return worldOver(sim, queues, dir, stops, stop);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

function worldOver(
  sim: SimCluster,
  queues: LocalQueues,
  dir: string,
  stops: (() => Promise<void>)[],
  stop: () => Promise<void>,
): RelayWorld {
  const kube = () =>
    createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
      managedKind: 'apps/v1',
      userAgent: 'everynode/test',
    });
  const journalPath = (name: string) => join(dir, `${name}.jsonl`);
  const podIsReady = (name: string) => {
    const pod = sim.store.get('pods', 'default', name) as unknown as V1Pod | undefined;
    return pod !== undefined && isPodReady(pod);
  };
  const world: RelayWorld = {
    sim,
    queues,
    dir,
    kube,
    relay: async (name, relayOptions = {}) => {
      const relay = await startRelay({
        kube: kube(),
        managedKind: 'apps/v1',
        bus: new LocalEventBus({
          sqs: queues.sqs,
          ingressUrl: queues.urls.ingress,
          journal: new Journal(journalPath(name)),
        }),
        checkpoints: new FileCheckpointStore(join(dir, `${name}-checkpoint.json`)),
        logger: silentLogger,
        checkpointEveryMs: 100,
        ...relayOptions,
      });
      stops.push(() => relay.stop());
      return relay;
    },
    triggers: (name) => journaledTriggers(journalPath(name)),
    relayFrozenWhile: async (name, act) => {
      const frozen = new Date();
      const relay = await world.relay(name, { clock: () => frozen });
      try {
        await act();
        const marker = world.createDaemonSet(`marker-${name}`, {
          desiredNumberScheduled: 0,
          currentNumberScheduled: 0,
          numberMisscheduled: 0,
          numberReady: 0,
        });
        const pod = world.createPodOf(marker, 'worker-2');
        await eventually(
          () => world.triggers(name),
          (seen) => seen.some((s) => s.detail.name === pod.metadata?.name),
        );
      } finally {
        await relay.stop();
      }
      return { triggers: await world.triggers(name), stats: relay.stats };
    },
    router: () => routerOver(kube(), queues),
    drainWork: () => drain(queues),
    createDaemonSet: (name, status) => {
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
    },
    createPodOf: (ds, nodeName, { name, image } = {}) => {
      const pod = newPod(name ?? `${ds.metadata?.name}-${nodeName}`, {
        owner: ds,
        nodeName,
        labels: { [DAEMONSET_UID_LABEL]: ds.metadata?.uid ?? '' },
      });
      const spec = image ? { ...(pod.spec as object), containers: [{ name: 'main', image }] } : pod.spec;
      return sim.store.create('pods', JSON.parse(JSON.stringify({ ...pod, spec }))) as unknown as V1Pod;
    },
    podIsReady,
    untilReady: async (...names) => {
      await eventually(
        () => names.every(podIsReady),
        (ready) => ready,
      );
    },
    stop,
  };
  return world;
}

/** The router's deps over `queues`, recording the requeue envelopes it sends to ingress. */
function routerOver(kube: KubePort, queues: LocalQueues): RouterAtWork {
  const delayed: RequeueEnvelope[] = [];
  const deps: RouterDeps = {
    kube,
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
  return { deps, delayed };
}
