import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerRevisionFor } from '../../../lib/core/controller-revision.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { silentLogger } from '../../../lib/log/structured-logger.ts';
import { LocalEventBus } from '../../../lib/queue/event-bus-local.ts';
import { Journal, readJournal } from '../../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../../lib/queue/local-queues.ts';
import { FileCheckpointStore } from '../../../lib/relay/run/checkpoint.ts';
import { type Relay, startRelay } from '../../../lib/relay/run/relay.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

interface Seen {
  detailType: string;
  event?: string;
  name?: string;
  changes?: string[];
  reason?: string;
  hints?: {
    node: { name: string; labels?: Record<string, string> };
    daemonSets: Record<string, unknown>[];
    pods: unknown[];
  };
}

async function journalled(path: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  try {
    for await (const entry of readJournal(path)) {
      const e = entry.trigger as { 'detail-type': string; detail: Record<string, unknown> };
      const d = e.detail as Omit<Seen, 'detailType'>;
      seen.push({ detailType: e['detail-type'], ...d });
    }
  } catch {
    // No journal yet: nothing published.
  }
  return seen;
}

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isEvent = (s: Seen, event: string, name: string) =>
  s.detailType === 'Kubernetes Watch Event' && s.event === event && s.name === name;

describe('relay against the simulated cluster through the real client', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  let dir: string;
  let journalPath: string;

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 6, bookmarkIntervalMs: 200 });
    queues = await startLocalQueues();
    dir = await mkdtemp(join(tmpdir(), 'everynode-relay-'));
    journalPath = join(dir, 'journal.jsonl');
  });
  afterAll(async () => {
    await sim.stop();
    await queues.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function relay(): Promise<Relay> {
    const kube = createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
      managedKind: 'apps/v1',
      userAgent: 'everynode/relay',
    });
    const bus = new LocalEventBus({
      sqs: queues.sqs,
      ingressUrl: queues.urls.ingress,
      journal: new Journal(journalPath),
    });
    const checkpoints = new FileCheckpointStore(join(dir, 'checkpoint.json'));
    return startRelay({
      kube,
      managedKind: 'apps/v1',
      bus,
      checkpoints,
      logger: silentLogger,
      checkpointEveryMs: 100,
    });
  }

  it('starts cold with a resync, forwards decision-relevant changes and drops heartbeats', async () => {
    const running = await relay();
    sim.nodes.add('joined-1');
    sim.nodes.label('worker-1', { disk: 'ssd' });
    sim.store.mutate(
      'nodes',
      undefined,
      'worker-ssd',
      (node) => {
        const status = node.status as { conditions?: Array<Record<string, unknown>> };
        for (const c of status.conditions ?? [])
          c.lastHeartbeatTime = new Date(Date.now() + 60_000).toISOString();
      },
      { subresource: 'status' },
    );
    sim.nodes.taint('master-1', { key: 'dedicated', value: 'infra', effect: 'NoExecute' });
    const seen = await eventually(
      () => journalled(journalPath),
      (s) => s.some((x) => isEvent(x, 'MODIFIED', 'master-1')),
    );
    await running.stop();
    expect(seen[0]).toMatchObject({ detailType: 'Everynode Resync' });
    expect(seen.find((s) => isEvent(s, 'ADDED', 'joined-1'))?.hints).toMatchObject({
      node: { name: 'joined-1' },
      daemonSets: [],
      pods: [],
    });
    const labelled = seen.find((s) => isEvent(s, 'MODIFIED', 'worker-1'));
    expect(labelled?.changes).toEqual(['labels']);
    expect(labelled?.hints?.node.labels).toMatchObject({ disk: 'ssd' });
    expect(seen.find((s) => isEvent(s, 'MODIFIED', 'master-1'))?.changes).toEqual(['taints']);
    expect(seen.filter((s) => s.name === 'worker-ssd')).toEqual([]);
  });

  it('resumes from its checkpoint after a restart: changes made while it was down are published, without a resync', async () => {
    const before = (await journalled(journalPath)).length;
    sim.nodes.label('worker-ssd', { zone: 'b' });
    sim.nodes.remove('cordoned-1');
    const running = await relay();
    const seen = await eventually(
      async () => (await journalled(journalPath)).slice(before),
      (s) =>
        s.some((x) => isEvent(x, 'DELETED', 'cordoned-1')) &&
        s.some((x) => isEvent(x, 'MODIFIED', 'worker-ssd')),
    );
    await running.stop();
    expect(seen.filter((s) => s.detailType === 'Everynode Resync')).toEqual([]);
    expect(seen.some((x) => isEvent(x, 'DELETED', 'cordoned-1'))).toBe(true);
    expect(seen.some((x) => isEvent(x, 'MODIFIED', 'worker-ssd'))).toBe(true);
  });

  it('follows ControllerRevisions for the revision hashes of its hints, forwarding and checkpointing none', async () => {
    const ds = sim.store.create('apps/daemonsets', newDaemonSet('agent')) as unknown as DaemonSet;
    const running = await relay();
    const before = (await journalled(journalPath)).length;
    // A revision made after the relay listed, hashed as kube-controller-manager would (not as we do).
    const revision = controllerRevisionFor(ds, 1);
    revision.metadata = {
      ...revision.metadata,
      name: 'agent-theirs',
      labels: { 'controller-revision-hash': 'theirs' },
    };
    sim.store.create('apps/controllerrevisions', JSON.parse(JSON.stringify(revision)));
    // Revisions and nodes come on separate watches: nodes join until one's hints show the revision.
    const hintedHash = (s: Seen[], node: string) =>
      s.find((x) => isEvent(x, 'ADDED', node))?.hints?.daemonSets[0]?.revisionHash;
    let joined = '';
    let seen: Seen[] = [];
    for (let i = 0; i < 20 && hintedHash(seen, joined) !== 'theirs'; i++) {
      joined = `joined-3-${i}`;
      sim.nodes.add(joined);
      const node = joined;
      seen = await eventually(
        async () => (await journalled(journalPath)).slice(before),
        (s) => s.some((x) => isEvent(x, 'ADDED', node)),
      );
    }
    await running.stop();
    expect(seen.find((x) => isEvent(x, 'ADDED', joined))?.hints?.daemonSets).toMatchObject([
      { uid: ds.metadata?.uid, revisionHash: 'theirs', object: { metadata: { name: 'agent' } } },
    ]);
    expect(seen.filter((x) => (x as { kind?: string }).kind === 'ControllerRevision')).toEqual([]);
    const checkpoint = JSON.parse(await readFile(join(dir, 'checkpoint.json'), 'utf8'));
    expect(Object.keys(checkpoint.resourceVersions).sort()).toEqual(['daemonsets', 'nodes', 'pods']);
  });

  it('relists after 410 Gone, asks for a resync, and keeps forwarding', async () => {
    const running = await relay();
    const before = (await journalled(journalPath)).length;
    // The relayed resources' watches; the orphan watches (one per DaemonSet) reconnect as usual.
    for (const key of ['nodes', 'pods', 'apps/daemonsets']) sim.faults.forceWatchGone(1, key);
    sim.faults.dropWatches();
    const resynced = await eventually(
      async () => (await journalled(journalPath)).slice(before),
      (s) => s.some((x) => x.detailType === 'Everynode Resync'),
    );
    expect(resynced.find((x) => x.detailType === 'Everynode Resync')?.reason).toMatch(/410 Gone/);
    sim.nodes.add('joined-2');
    const seen = await eventually(
      async () => (await journalled(journalPath)).slice(before),
      (s) => s.some((x) => isEvent(x, 'ADDED', 'joined-2')),
    );
    await running.stop();
    expect(seen.some((x) => isEvent(x, 'ADDED', 'joined-2'))).toBe(true);
    expect(running.stats.relists).toBeGreaterThan(0);
  });
});
