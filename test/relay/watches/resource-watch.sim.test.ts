/**
 * One `ResourceWatch` against the simulated cluster through the real client, for what the relay's
 * own tests (relay.sim.test.ts: triggers, resuming, a relist after 410 Gone; list-pages.sim.test.ts:
 * the LISTs) leave out: bookmarks and dropped no-ops moving the position, a watch the server ends
 * resumed with nothing lost or repeated, the relist after failed watches in a row, the pods' label
 * selector, a first LIST that fails, and ControllerRevisions, which feed the context alone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controllerRevisionFor } from '../../../lib/core/controller-revision.ts';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import type { KubePort, WatchedResource } from '../../../lib/kube/kube-port.ts';
import type { StructuredLogger } from '../../../lib/log/structured-logger.ts';
import type { BusEvent } from '../../../lib/queue/event-bus.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { RelayPublisher } from '../../../lib/relay/output/publisher.ts';
import {
  MAX_WATCH_FAILURES,
  ResourceWatch,
  type ResourceWatchOptions,
} from '../../../lib/relay/watches/resource-watch.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { eventually } from '../../support/journal-triggers.ts';
import { kubePortOf } from '../../support/sim-kube.ts';
import { newDaemonSet, newPod } from '../../support/store-test-helpers.ts';

const USER_AGENT = 'everynode/resource-watch-test';

describe('ResourceWatch against the simulated cluster', () => {
  let sim: SimCluster;
  let kube: KubePort;
  const running: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    // Pods pinned to absent nodes stay put: no kubelet runs them, pod GC waits an hour.
    sim = await startSimCluster({
      nodes: 3,
      bookmarkIntervalMs: 100,
      timing: { podGcQuarantineSeconds: 3600 },
    });
    kube = kubePortOf(sim, USER_AGENT);
  });
  afterEach(async () => {
    sim.faults.reset();
    for (const stop of running.splice(0)) await stop();
  });
  afterAll(async () => {
    await sim.stop();
  });

  /** A watch of `resource` publishing to a recording bus, with its stats and log; `run` starts it. */
  function watching<R extends WatchedResource>(resource: R, extra: Partial<ResourceWatchOptions<R>> = {}) {
    const published: BusEvent[] = [];
    const logs: { level: string; message: string }[] = [];
    const logger = Object.fromEntries(
      ['debug', 'info', 'warn', 'error'].map((level) => [
        level,
        (message: string) => logs.push({ level, message }),
      ]),
    ) as unknown as StructuredLogger;
    const publisher = new RelayPublisher({
      bus: { publish: async (events) => void published.push(...events) },
      lingerMs: 1,
    });
    const controller = new AbortController();
    const stats = { forwarded: 0, dropped: 0, coalesced: 0, relists: 0 };
    const watch = new ResourceWatch<R>({
      kube,
      resource,
      managedKind: 'apps/v1',
      resumeFrom: undefined,
      publisher,
      logger,
      signal: controller.signal,
      stats,
      ...extra,
    });
    const run = async () => {
      await watch.start();
      const loop = watch.run();
      running.push(async () => {
        controller.abort();
        await loop;
        await publisher.flush();
      });
    };
    const triggers = (name: string) =>
      published.filter((e) => e.detailType === 'Kubernetes Watch Event' && e.detail.name === name);
    return { watch, run, published, triggers, publisher, stats, logs };
  }

  const count = (verb: string, resource: string) =>
    sim.counters.total({ verb, resource, userAgent: USER_AGENT });
  const nodeVersion = (name: string) => sim.store.get('nodes', undefined, name)?.metadata.resourceVersion;

  it('counts a no-op as dropped, triggering nothing, and bookmarks move the position past the last event', async () => {
    const [labelled = '', beating = ''] = sim.nodes.names();
    const w = watching('nodes');
    await w.run();
    sim.nodes.label(labelled, { disk: 'ssd' });
    await eventually(
      () => w.triggers(labelled).length,
      (n) => n === 1,
    );
    sim.store.mutate(
      'nodes',
      undefined,
      beating,
      (node) => {
        const status = node.status as { conditions?: Record<string, unknown>[] };
        for (const c of status.conditions ?? [])
          c.lastHeartbeatTime = new Date(Date.now() + 60_000).toISOString();
      },
      { subresource: 'status' },
    );
    await eventually(
      () => w.stats.dropped,
      (n) => n === 1,
    );
    // A change of no node: only a bookmark takes the node watch's position to its version.
    const other = sim.store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'bump' },
    });
    const bumped = other.metadata.resourceVersion;
    expect(Number(bumped)).toBeGreaterThan(Number(nodeVersion(beating)));
    await eventually(
      () => w.publisher.positions.nodes,
      (rv) => rv === bumped,
    );
    expect(w.published.map((e) => [e.detail.event, e.detail.name, e.detail.changes])).toEqual([
      ['MODIFIED', labelled, ['labels']],
    ]);
    expect(w.stats).toEqual({ forwarded: 1, dropped: 1, coalesced: 0, relists: 0 });
  });

  it('resumes a watch the server ended at its timeout from its position: nothing lost, nothing repeated, no relist', async () => {
    sim.counters.reset();
    const w = watching('nodes', { watchTimeoutSeconds: 1 });
    await w.run();
    await eventually(
      () => count('watch', 'nodes'),
      (n) => n >= 1,
    );
    const names = sim.nodes.names();
    for (const [round, name] of names.entries()) {
      const watches = count('watch', 'nodes');
      sim.nodes.label(name, { round: String(round) });
      await eventually(
        () => w.triggers(name).length,
        (n) => n === 1,
      );
      // The next change is made once the server ended this watch and the next one is open.
      await eventually(
        () => count('watch', 'nodes'),
        (n) => n > watches,
        5_000,
      );
    }
    expect(names.map((name) => w.triggers(name).length)).toEqual(names.map(() => 1));
    expect(count('watch', 'nodes')).toBeGreaterThanOrEqual(names.length + 1);
    expect(count('list', 'nodes')).toBe(1);
    // A watch resumed from an older version would replay changes, each dropped as a no-op.
    expect(w.stats).toEqual({ forwarded: names.length, dropped: 0, coalesced: 0, relists: 0 });
    expect(w.logs).toEqual([]);
  });

  it(`relists and asks for a resync after ${MAX_WATCH_FAILURES} failed watches in a row, backing off between them`, async () => {
    sim.counters.reset();
    const w = watching('nodes');
    await w.run();
    const from = w.watch.startPosition;
    const started = Date.now();
    sim.faults.setErrorRate('watch', { status: 500, rate: 1 });
    const reason = `relay relisted nodes after ${MAX_WATCH_FAILURES} failed watches from ${from}`;
    await eventually(
      () => w.published.map((e) => e.detail.reason),
      (r) => r.includes(reason),
      20_000,
    );
    // 200 + 400 + 800 + 1,600 ms after the first four failures, 3,200 ms after the fifth.
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
    sim.faults.reset();
    const [node = ''] = sim.nodes.names();
    sim.nodes.label(node, { after: 'relist' });
    await eventually(
      () => w.triggers(node).length,
      (n) => n === 1,
      15_000,
    );
    const warnings = w.logs.filter((l) => l.level === 'warn').slice(0, MAX_WATCH_FAILURES);
    expect(warnings).toEqual(
      Array.from({ length: MAX_WATCH_FAILURES }, () => ({
        level: 'warn',
        message: `watching nodes failed; retrying from ${from}`,
      })),
    );
    expect(w.logs.filter((l) => l.level === 'info')).toEqual([
      {
        level: 'info',
        message: `relisted nodes after ${MAX_WATCH_FAILURES} failed watches from ${from}; asking for a resync`,
      },
    ]);
    expect(w.published.filter((e) => e.detailType === 'Everynode Resync')).toHaveLength(1);
    expect(w.stats.relists).toBe(1);
    expect(count('list', 'nodes')).toBe(2);
  });

  it("watches only everynode's pods: those carrying the DaemonSet uid label", async () => {
    const ds = sim.store.create('apps/daemonsets', newDaemonSet('agent'));
    const uid = ds.metadata.uid ?? '';
    const w = watching('pods');
    await w.run();
    const owner = aDaemonSet('agent', { uid });
    sim.store.create('pods', newPod('agent-theirs', { owner, nodeName: 'absent' }));
    sim.store.create(
      'pods',
      newPod('agent-ours', { owner, nodeName: 'absent', labels: { [DAEMONSET_UID_LABEL]: uid } }),
    );
    const [added] = await eventually(
      () => w.triggers('agent-ours'),
      (t) => t.length > 0,
    );
    expect(added?.detail).toMatchObject({
      event: 'ADDED',
      kind: 'Pod',
      nodeName: 'absent',
      controller: { uid },
    });
    // The unlabelled pod was created first: its event, were it watched, would have come first.
    expect(w.published.map((e) => e.detail.name)).toEqual(['agent-ours']);
  });

  it('fails its start when the resource cannot be listed, publishing nothing', async () => {
    const w = watching('daemonsets');
    sim.faults.setErrorRate('list', { status: 500, rate: 1 });
    await expect(w.watch.start()).rejects.toThrow();
    sim.faults.reset();
    await w.publisher.flush();
    expect(w.published).toEqual([]);
    expect(w.publisher.positions).toEqual({});
  });

  it('ControllerRevisions feed the context only: no trigger, no position, and a relist asks for no resync', async () => {
    sim.store.create('apps/daemonsets', newDaemonSet('rev-agent'));
    const ds = (await kube.listDaemonSets()).items.find((d) => d.metadata?.name === 'rev-agent') as DaemonSet;
    const context = new RelayNodeContext();
    context.seed('daemonsets', [ds]);
    const hash = () =>
      context.hintsFor(aNode('n'), new Date())?.daemonSets.find((d) => d.uid === ds.metadata?.uid)
        ?.revisionHash;
    sim.counters.reset();
    const w = watching('controllerrevisions', { context });
    await w.run();
    const ours = controllerRevisionFor(ds, 1);
    expect(hash()).toBe(ours.metadata?.labels?.['controller-revision-hash']);
    // A revision matching the DaemonSet under another hash (another controller's): new pods get its hash.
    const theirs = {
      ...ours,
      metadata: {
        ...ours.metadata,
        name: 'rev-agent-theirs',
        labels: { 'controller-revision-hash': 'theirs' },
      },
    };
    sim.store.create('apps/controllerrevisions', JSON.parse(JSON.stringify(theirs)));
    await eventually(hash, (h) => h === 'theirs');
    sim.faults.forceWatchGone(1);
    sim.faults.dropWatches();
    await eventually(
      () => count('list', 'apps/controllerrevisions'),
      (n) => n === 2,
    );
    sim.store.delete('apps/controllerrevisions', 'default', 'rev-agent-theirs');
    await eventually(hash, (h) => h === ours.metadata?.labels?.['controller-revision-hash']);
    await running.splice(0).at(0)?.();
    expect(w.published).toEqual([]);
    expect(w.publisher.positions).toEqual({});
    expect(w.stats).toEqual({ forwarded: 0, dropped: 0, coalesced: 0, relists: 0 });
    // The dropped connection is a failed watch, retried; the relist itself logs nothing.
    const retried = 'watching controllerrevisions failed; retrying from ';
    expect(w.logs.filter((l) => !(l.level === 'warn' && l.message.startsWith(retried)))).toEqual([]);
  });
});
