/**
 * Where the relay resumes at its start: from its checkpoint only when the checkpoint is of this
 * cluster (the kube-system namespace's uid and the server URL) and the cluster has reached its
 * versions; otherwise from a fresh LIST, with a resync request and one log line saying why.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import type { ClusterIdentity } from '../../../lib/kube/kube-port.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import type { StructuredLogger } from '../../../lib/log/structured-logger.ts';
import type { BusEvent } from '../../../lib/queue/event-bus.ts';
import type { RelayCheckpoint } from '../../../lib/relay/run/checkpoint.ts';
import { FileCheckpointStore } from '../../../lib/relay/run/checkpoint.ts';
import { type Relay, startRelay } from '../../../lib/relay/run/relay.ts';
import { checkpointVerdict } from '../../../lib/relay/run/resume.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';

const here: ClusterIdentity = { server: 'https://a.example', kubeSystemUid: 'uid-a' };
const versions = (rv: string) => ({ nodes: rv, pods: rv, daemonsets: rv });

describe('whether a checkpoint can be resumed from', () => {
  it.each([
    {
      name: 'one of this cluster, managing the same kind',
      checkpoint: { managedKind: 'apps/v1', resourceVersions: versions('5'), cluster: here },
      verdict: { usable: true },
    },
    {
      name: 'one without a cluster (an older relay wrote it)',
      checkpoint: { managedKind: 'apps/v1', resourceVersions: versions('5') },
      verdict: { usable: false, level: 'info', why: 'names no cluster (an older relay wrote it)' },
    },
    {
      name: 'one of another cluster (another kube-system uid)',
      checkpoint: {
        managedKind: 'apps/v1',
        resourceVersions: versions('5'),
        cluster: { ...here, kubeSystemUid: 'uid-b' },
      },
      verdict: {
        usable: false,
        level: 'warn',
        why: 'is of another cluster (kube-system uid uid-b at https://a.example; this cluster: kube-system uid uid-a at https://a.example)',
      },
    },
    {
      name: 'one of another API server URL',
      checkpoint: {
        managedKind: 'apps/v1',
        resourceVersions: versions('5'),
        cluster: { ...here, server: 'https://b.example' },
      },
      verdict: { usable: false, level: 'warn' },
    },
    {
      name: 'one taken managing the other kind',
      checkpoint: { managedKind: 'everynode.dev/v1', resourceVersions: versions('5'), cluster: here },
      verdict: {
        usable: false,
        level: 'info',
        why: 'was taken managing everynode.dev/v1 DaemonSets, not apps/v1',
      },
    },
  ] as const)('$name', ({ checkpoint, verdict }) => {
    expect(checkpointVerdict(checkpoint, here, 'apps/v1')).toMatchObject(verdict);
  });
});

async function eventually<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Run {
  readonly relay: Relay;
  readonly published: BusEvent[];
  readonly logs: { level: string; message: string }[];
}

const addedNode = (name: string) => (e: BusEvent) =>
  e.detailType === 'Kubernetes Watch Event' && e.detail.event === 'ADDED' && e.detail.name === name;
const isResync = (e: BusEvent) => e.detailType === 'Everynode Resync';

describe('the relay at its start, against the simulated cluster', () => {
  let sim: SimCluster;
  let dir: string;
  let joined = 0;

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 3, bookmarkIntervalMs: 200 });
    dir = await mkdtemp(join(tmpdir(), 'everynode-relay-resume-'));
  });
  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const thisCluster = (): ClusterIdentity => ({
    server: sim.url,
    kubeSystemUid: sim.store.get('namespaces', undefined, 'kube-system')?.metadata.uid ?? '',
  });

  async function start(checkpointPath: string): Promise<Run> {
    const published: BusEvent[] = [];
    const logs: Run['logs'] = [];
    const log =
      (level: string) =>
      (message: string): void => {
        logs.push({ level, message });
      };
    const logger: StructuredLogger = {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
    };
    const relay = await startRelay({
      kube: createKubePort({
        connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
        managedKind: 'apps/v1',
        userAgent: 'everynode/relay',
      }),
      managedKind: 'apps/v1',
      bus: { publish: async (events) => void published.push(...events) },
      checkpoints: new FileCheckpointStore(checkpointPath),
      logger,
      checkpointEveryMs: 100,
    });
    return { relay, published, logs };
  }

  /** Adds a node and waits until the relay forwarded it; returns what the relay published. */
  async function nodeJoins(run: Run): Promise<BusEvent[]> {
    joined += 1;
    const name = `joined-${joined}`;
    sim.nodes.add(name);
    return eventually(
      () => run.published,
      (events) => events.some(addedNode(name)),
    ).then((events) => {
      expect(events.some(addedNode(name))).toBe(true);
      return events;
    });
  }

  it.each([
    {
      name: 'ignores a checkpoint of another cluster (another kube-system uid)',
      checkpoint: (): RelayCheckpoint => ({
        managedKind: 'apps/v1',
        resourceVersions: versions('1'),
        cluster: { server: sim.url, kubeSystemUid: 'uid-of-another-cluster' },
      }),
      log: { level: 'warn', message: /^ignoring the relay checkpoint, which is of another cluster \(/ },
      resync: /: the stored checkpoint is of another cluster/,
      nodeLists: 1,
      relists: 0,
    },
    {
      name: 'ignores a checkpoint that names no cluster (an older relay wrote it)',
      checkpoint: (): RelayCheckpoint => ({ managedKind: 'apps/v1', resourceVersions: versions('1') }),
      log: { level: 'info', message: /^ignoring the relay checkpoint, which names no cluster/ },
      resync: /: the stored checkpoint names no cluster/,
      nodeLists: 1,
      relists: 0,
    },
    {
      name: 'relists what a checkpoint of this cluster names at versions it has not reached (etcd restored)',
      checkpoint: (): RelayCheckpoint => ({
        managedKind: 'apps/v1',
        resourceVersions: versions(String(sim.store.resourceVersion + 1_000_000)),
        cluster: thisCluster(),
      }),
      log: {
        level: 'warn',
        message:
          /^the cluster has not reached the checkpointed versions of nodes \d+, pods \d+, daemonsets \d+/,
      },
      resync: /: the cluster has not reached the checkpointed versions/,
      // The LIST at the checkpointed version (answered 504 Too large resource version), then a fresh one.
      nodeLists: 2,
      relists: 3,
    },
  ])('$name: fresh LIST, one log line, a resync request, and triggers flow', async (c) => {
    const path = join(dir, `checkpoint-${joined}.json`);
    await writeFile(path, JSON.stringify(c.checkpoint()));
    sim.counters.reset();
    const run = await start(path);
    const published = await nodeJoins(run);
    await run.relay.stop();
    expect(published.filter(isResync)).toHaveLength(1);
    expect(published[0]?.detail.reason).toMatch(
      /^relay started without a checkpoint for nodes, pods, daemonsets/,
    );
    expect(published[0]?.detail.reason).toMatch(c.resync);
    expect(run.logs).toEqual([{ level: c.log.level, message: expect.stringMatching(c.log.message) }]);
    expect(sim.counters.total({ verb: 'list', resource: 'nodes' })).toBe(c.nodeLists);
    expect(run.relay.stats.relists).toBe(c.relists);
    expect(JSON.parse(await readFile(path, 'utf8')).cluster).toEqual(thisCluster());
  });

  it('resumes from a checkpoint of this cluster at versions it reached: no relist, no resync', async () => {
    const path = join(dir, 'checkpoint-resumed.json');
    const first = await start(path);
    await nodeJoins(first);
    await first.relay.stop();
    expect(JSON.parse(await readFile(path, 'utf8')).cluster).toEqual(thisCluster());
    sim.nodes.add('while-down');
    sim.counters.reset();
    const second = await start(path);
    const published = await eventually(
      () => second.published,
      (events) => events.some(addedNode('while-down')),
    );
    await second.relay.stop();
    expect(published.some(addedNode('while-down'))).toBe(true);
    expect(published.filter(isResync)).toEqual([]);
    expect(second.relay.stats.relists).toBe(0);
    expect(second.logs).toEqual([]);
    // One LIST checks the checkpointed version, one seeds the cache; no relist.
    expect(sim.counters.total({ verb: 'list', resource: 'nodes' })).toBe(2);
  });
});
