/**
 * The chain of relay runs (lib/relay/run/run.ts) against the simulated cluster: each run is the
 * real relay with its own watches over HTTP, sharing one checkpoint record as runs on AWS share the
 * SSM parameter; a successor invocation starts another run in this process, as Lambda would start
 * one in another container.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { silentLogger } from '../../../lib/log/structured-logger.ts';
import type { BusEvent, EventBus } from '../../../lib/queue/event-bus.ts';
import { LocalEventBus } from '../../../lib/queue/event-bus-local.ts';
import { Journal } from '../../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../../lib/queue/local-queues.ts';
import {
  FileCheckpointStore,
  type RelayCheckpoint,
  type RelayCheckpointStore,
} from '../../../lib/relay/run/checkpoint.ts';
import {
  RELAY_LEASE_FRESH_MS,
  type RelaySuccessorEvent,
  relayLease,
} from '../../../lib/relay/run/handover.ts';
import { type RelayRunOptions, type RelayRunReport, runRelay } from '../../../lib/relay/run/run.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';

/** The bus of the local pipeline, noting when each node's watch trigger was accepted. */
class TimedBus implements EventBus {
  readonly nodeSeenAt = new Map<string, number>();
  constructor(private readonly bus: EventBus) {}
  async publish(events: readonly BusEvent[]): Promise<void> {
    await this.bus.publish(events);
    for (const event of events) {
      const { kind, name } = event.detail as { kind?: string; name?: string };
      if (kind === 'Node' && name && !this.nodeSeenAt.has(name)) this.nodeSeenAt.set(name, Date.now());
    }
  }
}

/** The shared record, keeping every version of it written. */
class RecordedStore implements RelayCheckpointStore {
  readonly written: RelayCheckpoint[] = [];
  readonly writtenAt: number[] = [];
  constructor(private readonly file: FileCheckpointStore) {}
  load() {
    return this.file.load();
  }
  async save(checkpoint: Readonly<RelayCheckpoint>) {
    await this.file.save(checkpoint);
    this.written.push(structuredClone(checkpoint) as RelayCheckpoint);
    this.writtenAt.push(Date.now());
  }
}

describe('the chain of relay runs', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 3 });
    queues = await startLocalQueues();
  });
  afterAll(async () => {
    await queues.stop();
    await sim.stop();
  });

  /** A world: the shared record and bus, and how to start runs in it. */
  function world(prefix: string, kubeconfig = () => sim.kubeconfig) {
    const dir = mkdtempSync(join(tmpdir(), `everynode-relay-chain-${prefix}-`));
    const store = new RecordedStore(new FileCheckpointStore(join(dir, 'checkpoint.json')));
    const bus = new TimedBus(
      new LocalEventBus({
        sqs: queues.sqs,
        ingressUrl: queues.urls.ingress,
        journal: new Journal(join(dir, 'j')),
      }),
    );
    const runs = new Map<string, Promise<RelayRunReport>>();
    let offset = 0;
    const run = (runId: string, options: Partial<RelayRunOptions> = {}) => {
      const started = runRelay({
        relay: {
          kube: createKubePort({
            connection: connectionFromKubeConfig(loadKubeConfig({ yaml: kubeconfig() })),
            managedKind: 'apps/v1',
          }),
          managedKind: 'apps/v1',
          bus,
          checkpoints: store,
          logger: silentLogger,
          checkpointEveryMs: 500,
          lingerMs: 5,
        },
        event: { source: 'aws.events', 'detail-type': 'Scheduled Event' },
        runId,
        runSeconds: 300,
        watchMillis: 20_000,
        invokeSuccessor: async () => undefined,
        now: () => Date.now() + offset,
        pollMs: 100,
        ...options,
      });
      runs.set(runId, started);
      return started;
    };
    return { store, bus, run, runs, skip: (ms: number) => (offset += ms) };
  }

  it('hands the watch over with nobody missing a change, the checkpoint never moving back', async () => {
    const w = world('handover');
    let successorStarted = 0;
    // A 21 s period: the successor is due 1 s after the first run starts.
    const firstStarted = Date.now();
    const first = w.run('run-a', {
      runSeconds: 21,
      watchMillis: 30_000,
      invokeSuccessor: async (event: RelaySuccessorEvent) => {
        successorStarted = Date.now();
        void w.run('run-b', { event, watchMillis: 6_000 });
      },
    });
    const added: Array<{ name: string; at: number }> = [];
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const name = `handover-${i}`;
      sim.nodes.add(name);
      added.push({ name, at: Date.now() });
    }
    const a = await first;
    const b = await w.runs.get('run-b');
    expect(a).toMatchObject({ outcome: 'handed-over', successor: 'run-b', successorsInvoked: 1 });
    expect(b).toMatchObject({ trigger: 'successor', outcome: 'deadline' });
    // Every node's trigger was accepted within a second of its creation, across the hand-over.
    const latencies = added.map(
      ({ name, at }) => (w.bus.nodeSeenAt.get(name) ?? Number.POSITIVE_INFINITY) - at,
    );
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    // The first run stopped soon after the second took the lease, and never wrote after that.
    const takeover = w.store.written.findIndex((c) => c.lease?.runId === 'run-b');
    expect(takeover).toBeGreaterThan(0);
    expect(w.store.written.slice(takeover).some((c) => c.lease?.runId === 'run-a')).toBe(false);
    expect(successorStarted).toBeGreaterThan(0);
    // The runs overlapped: the first still watched when the second took over, for about a poll.
    // When it stopped watching, by its own clock: the start of its watchedMillis comes after its
    // checkpoint read, later than this test's firstStarted on a loaded machine.
    const firstEnded = a.watching?.until ?? firstStarted + a.watchedMillis;
    const takenOverAt = w.store.writtenAt[takeover] ?? 0;
    expect(firstEnded).toBeGreaterThanOrEqual(takenOverAt);
    expect(firstEnded - takenOverAt).toBeLessThan(1_000);
    const nodeVersions = w.store.written.map((c) => Number(c.resourceVersions.nodes ?? 0));
    expect(nodeVersions).toEqual([...nodeVersions].sort((x, y) => x - y));
    // The last run gave the lease up at its deadline: the next watchdog tick starts a run at once.
    expect(w.store.written.at(-1)?.lease).toBeUndefined();
  }, 30_000);

  it('a watchdog invocation exits while another run holds a fresh lease, and watches once it is stale', async () => {
    const w = world('watchdog');
    const checkpoint: RelayCheckpoint = { managedKind: 'apps/v1', resourceVersions: {} };
    await w.store.save({ ...checkpoint, lease: relayLease('run-elsewhere', Date.now() - 5_000) });
    const early = await w.run('tick-1', { watchMillis: 1_000 });
    expect(early).toMatchObject({ outcome: 'not-needed', watchedMillis: 0 });
    expect(w.store.written).toHaveLength(1);
    // The holder crashed: its heartbeat grows older than the freshness window.
    w.skip(RELAY_LEASE_FRESH_MS);
    const late = await w.run('tick-2', { watchMillis: 1_500 });
    expect(late).toMatchObject({ outcome: 'deadline' });
    expect(w.store.written.some((c) => c.lease?.runId === 'tick-2')).toBe(true);
  }, 15_000);

  it('a late successor finds another run holding the lease and stops without writing', async () => {
    const w = world('late');
    await w.store.save({
      managedKind: 'apps/v1',
      resourceVersions: {},
      lease: relayLease('run-current', Date.now()),
    });
    const late = await w.run('run-late', {
      event: { everynode: 'relay-successor', predecessor: 'run-long-gone' },
      watchMillis: 5_000,
    });
    expect(late).toMatchObject({ outcome: 'superseded', successor: 'run-current' });
    expect(w.store.written).toHaveLength(1);
  }, 15_000);

  it('invokes another successor when the first never takes over, and retries a failed Invoke', async () => {
    const w = world('reinvoke');
    const invocations: number[] = [];
    const first = w.run('run-a', {
      runSeconds: 20,
      watchMillis: 60_000,
      invokeSuccessor: async (event: RelaySuccessorEvent) => {
        invocations.push(Date.now());
        if (invocations.length === 1) throw new Error('TooManyRequestsException: throttled');
        // The second attempt is accepted but its run never starts (lost); the third starts.
        if (invocations.length === 2) {
          setTimeout(() => w.skip(30_000), 300);
          return;
        }
        void w.run('run-c', { event, watchMillis: 3_000 });
      },
    });
    const a = await first;
    expect(invocations).toHaveLength(3);
    expect(a).toMatchObject({ outcome: 'handed-over', successor: 'run-c', successorsInvoked: 2 });
    expect(await w.runs.get('run-c')).toMatchObject({ outcome: 'deadline' });
  }, 30_000);

  it('a run that cannot reach the API server fails at once without taking the lease', async () => {
    const down = await startSimCluster({ nodes: 1 });
    const kubeconfig = down.kubeconfig;
    await down.stop();
    const w = world('down', () => kubeconfig);
    await w.store.save({
      managedKind: 'apps/v1',
      resourceVersions: {},
      lease: relayLease('run-a', Date.now() - 25_000),
    });
    const started = Date.now();
    await expect(w.run('run-w', { watchMillis: 2_000 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(w.store.written).toHaveLength(1);
    expect((await w.store.load())?.lease?.runId).toBe('run-a');
  }, 20_000);
});
