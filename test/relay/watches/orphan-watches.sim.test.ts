/**
 * The relay's orphan watches against the simulated cluster through the real client: which pods of
 * a managed DaemonSet's selection are forwarded for it to adopt, how often, and that the watches
 * follow the DaemonSets they are for.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import type { KubePort } from '../../../lib/kube/kube-port.ts';
import { silentLogger } from '../../../lib/log/structured-logger.ts';
import type { WatchEventDetail } from '../../../lib/messages/trigger.ts';
import type { BusEvent } from '../../../lib/queue/event-bus.ts';
import { RelayPublisher } from '../../../lib/relay/output/publisher.ts';
import { OrphanWatches, orphanSelectorOf } from '../../../lib/relay/watches/orphan-watches.ts';
import type { RelayStats } from '../../../lib/relay/watches/relay-stats.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { eventually } from '../../support/journal-triggers.ts';
import { kubePortOf } from '../../support/sim-kube.ts';
import { newDaemonSet, newPod } from '../../support/store-test-helpers.ts';

describe('orphanSelectorOf', () => {
  it('selects what the selector matches, without the pods everynode follows already', () => {
    const ds = aDaemonSet('agent');
    expect(orphanSelectorOf(ds)).toBe(`app=agent,!${DAEMONSET_UID_LABEL}`);
  });

  it.each([
    { name: 'being deleted', ds: { metadata: { deletionTimestamp: new Date() } } },
    { name: 'an empty selector', ds: { spec: { selector: {} } } },
    { name: 'an invalid selector', ds: { spec: { selector: { matchLabels: { 'a b': 'c' } } } } },
  ])('adopts nothing with $name', ({ ds }) => {
    const base = aDaemonSet('agent');
    const changed = {
      ...base,
      metadata: { ...base.metadata, ...ds.metadata },
      spec: { ...base.spec, ...ds.spec },
    } as DaemonSet;
    expect(orphanSelectorOf(changed)).toBeUndefined();
  });
});

describe('OrphanWatches against the simulated cluster', () => {
  let sim: SimCluster;
  let kube: KubePort;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    // Pods pinned to absent nodes stay put: no kubelet runs them, pod GC waits an hour.
    sim = await startSimCluster({
      nodes: 3,
      bookmarkIntervalMs: 100,
      timing: { podGcQuarantineSeconds: 3600 },
    });
    kube = kubePortOf(sim, 'everynode/orphan-watches-test');
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  afterAll(async () => sim.stop());

  /** Orphan watches publishing to a recording bus; `details` are the triggers so far. */
  function watching() {
    const published: BusEvent[] = [];
    const publisher = new RelayPublisher({
      bus: { publish: async (events) => void published.push(...events) },
      lingerMs: 1,
    });
    const controller = new AbortController();
    const stats: RelayStats = { forwarded: 0, dropped: 0, coalesced: 0, relists: 0 };
    const orphans = new OrphanWatches({
      kube,
      managedKind: 'apps/v1',
      publisher,
      logger: silentLogger,
      signal: controller.signal,
      stats,
    });
    const settled = orphans.settled();
    stops.push(async () => {
      controller.abort();
      await settled;
      await publisher.flush();
    });
    const details = () => published.map((event) => event.detail as WatchEventDetail);
    return { orphans, stats, details };
  }

  function createDaemonSet(name: string, namespace: string): DaemonSet {
    return sim.store.create('apps/daemonsets', newDaemonSet(name, { namespace })) as unknown as DaemonSet;
  }

  it('forwards an orphan listed at the start and one created later, once per node, naming the DaemonSet', async () => {
    await sim.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'one' } });
    const ds = createDaemonSet('agent', 'one');
    sim.store.create(
      'pods',
      newPod('before', { namespace: 'one', labels: { app: 'agent' }, nodeName: 'absent-1' }),
    );
    const w = watching();
    w.orphans.seeded('daemonsets', [ds]);
    await eventually(w.details, (d) => d.length === 1);
    expect(w.details()[0]).toMatchObject({
      kind: 'Pod',
      name: 'before',
      namespace: 'one',
      nodeName: 'absent-1',
      adoptableBy: { name: 'agent', uid: ds.metadata?.uid },
    });
    expect(w.details()[0]?.controller).toBeUndefined();

    // The scheduler binds it: its pair can now be made right. A status change after is no news.
    sim.store.create('pods', newPod('later', { namespace: 'one', labels: { app: 'agent' } }));
    await eventually(w.details, (d) => d.length === 3);
    sim.store.mutate('pods', 'one', 'later', (pod) => {
      pod.metadata.annotations = { touched: 'yes' };
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [, added, bound] = w.details();
    expect([added?.event, added?.name, added?.nodeName]).toEqual(['ADDED', 'later', undefined]);
    expect([bound?.event, bound?.name, bound?.nodeName]).toEqual(['MODIFIED', 'later', 'worker-1']);
    expect(w.details()).toHaveLength(3);
    expect(w.stats.orphans).toBe(3);
  });

  it('forwards no pod another controller owns, nor one everynode follows, nor another selection', async () => {
    await sim.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'two' } });
    const ds = createDaemonSet('agent', 'two');
    const w = watching();
    w.orphans.seeded('daemonsets', [ds]);
    const owner = aDaemonSet('other', { namespace: 'two', uid: 'uid-other', labels: { app: 'agent' } });
    sim.store.create('pods', newPod('theirs', { namespace: 'two', owner, nodeName: 'absent-1' }));
    const followed = { app: 'agent', [DAEMONSET_UID_LABEL]: ds.metadata?.uid ?? '' };
    sim.store.create(
      'pods',
      newPod('followed', { namespace: 'two', labels: followed, nodeName: 'absent-1' }),
    );
    sim.store.create(
      'pods',
      newPod('unrelated', { namespace: 'two', labels: { app: 'web' }, nodeName: 'absent-1' }),
    );
    // The marker: an orphan made last is forwarded, so the ones before it would have been too.
    sim.store.create(
      'pods',
      newPod('marker', { namespace: 'two', labels: { app: 'agent' }, nodeName: 'absent-1' }),
    );
    await eventually(w.details, (d) => d.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.details().map((d) => d.name)).toEqual(['marker']);
  });

  it('stops watching for a DaemonSet deleted, and starts for one created', async () => {
    await sim.store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'three' },
    });
    const ds = createDaemonSet('agent', 'three');
    const w = watching();
    w.orphans.seeded('daemonsets', [ds]);
    w.orphans.observed('daemonsets', { type: 'DELETED', object: ds, resourceVersion: '1' });
    const fresh = createDaemonSet('fresh', 'three');
    w.orphans.observed('daemonsets', { type: 'ADDED', object: fresh, resourceVersion: '1' });
    sim.store.create(
      'pods',
      newPod('for-agent', { namespace: 'three', labels: { app: 'agent' }, nodeName: 'n' }),
    );
    sim.store.create(
      'pods',
      newPod('for-fresh', { namespace: 'three', labels: { app: 'fresh' }, nodeName: 'n' }),
    );
    await eventually(w.details, (d) => d.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.details().map((d) => [d.name, d.adoptableBy?.name])).toEqual([['for-fresh', 'fresh']]);
  });

  it('relists after 410 Gone and forwards each orphan once', async () => {
    await sim.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'four' } });
    const ds = createDaemonSet('agent', 'four');
    sim.store.create('pods', newPod('early', { namespace: 'four', labels: { app: 'agent' }, nodeName: 'n' }));
    sim.faults.forceWatchGone(2);
    const w = watching();
    w.orphans.seeded('daemonsets', [ds]);
    await eventually(w.details, (d) => d.length >= 1, 5_000);
    sim.store.create('pods', newPod('late', { namespace: 'four', labels: { app: 'agent' }, nodeName: 'n' }));
    await eventually(w.details, (d) => d.length >= 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.details().map((d) => d.name)).toEqual(['early', 'late']);
  });
});
