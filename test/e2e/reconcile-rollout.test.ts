import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import { aDaemonSet, aNode, type DaemonSetOptions } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  isReady,
  pairMessage,
  placementOf,
  podsOf,
  resyncUntil,
  storedDaemonSet,
  updateDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
const V2 = 'busybox:1.37';

/** The worst moments of a rollout, watched at every change of the cluster. */
interface Extremes {
  /** Nodes without an available pod. */
  unavailable: number;
  /** Nodes with more than one live pod. */
  surged: number;
  /** Nodes being replaced: no live old pod and no available new pod. */
  replacing: number;
}

function imageOf(pod: Readonly<V1Pod>): string | undefined {
  return pod.spec?.containers[0]?.image;
}

function measure(harness: Harness, uid: string): Extremes {
  const live = podsOf(harness, uid).filter((pod) => !pod.metadata?.deletionTimestamp);
  const now: Extremes = { unavailable: 0, surged: 0, replacing: 0 };
  for (const node of NODES) {
    const onNode = live.filter((pod) => targetNodeName(pod) === node);
    if (!onNode.some(isReady)) now.unavailable++;
    if (onNode.length > 1) now.surged++;
    const oldLive = onNode.some((pod) => imageOf(pod) !== V2);
    const newAvailable = onNode.some((pod) => imageOf(pod) === V2 && isReady(pod));
    if (!oldLive && !newAvailable) now.replacing++;
  }
  return now;
}

/** Watches the DaemonSet's pods from now on; `stop` returns the worst values seen. */
function watchExtremes(harness: Harness, uid: string): { stop: () => Extremes } {
  const worst: Extremes = { unavailable: 0, surged: 0, replacing: 0 };
  const unsubscribe = harness.sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const now = measure(harness, uid);
    worst.unavailable = Math.max(worst.unavailable, now.unavailable);
    worst.surged = Math.max(worst.surged, now.surged);
    worst.replacing = Math.max(worst.replacing, now.replacing);
  });
  return {
    stop: () => {
      unsubscribe();
      return worst;
    },
  };
}

const images = (harness: Harness, uid: string) =>
  podsOf(harness, uid)
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .map(imageOf)
    .sort();

describe('rolling update', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), podDeletions: true });
  });
  afterAll(async () => harness?.stop());

  async function converged(name: string, options: DaemonSetOptions): Promise<V1DaemonSet> {
    const ds = createDaemonSet(
      harness,
      aDaemonSet(name, { ...options, podSpec: { terminationGracePeriodSeconds: 0, ...options.podSpec } }),
    );
    const uid = ds.metadata?.uid ?? '';
    await harness.send(daemonSetMessage(ds));
    await waitFor(
      `${name} placed`,
      () =>
        placementOf(harness, uid).join() === NODES.join() &&
        (options.image?.includes('unready') || allReady(harness, uid)),
    );
    await harness.quiet();
    return ds;
  }

  /** Runs the DaemonSet step three times, each until the pipeline is quiet (a held rollout stays held). */
  async function syncThreeTimes(ds: V1DaemonSet): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await harness.send(daemonSetMessage(ds));
      await harness.quiet();
    }
  }

  function newImage(ds: V1DaemonSet, annotations?: Record<string, string | null>) {
    return updateDaemonSet(harness, 'default', ds.metadata?.name ?? '', (stored) => {
      const container = stored.spec?.template.spec?.containers[0];
      if (container) container.image = V2;
      for (const [key, value] of Object.entries(annotations ?? {})) {
        const all = { ...stored.metadata?.annotations };
        if (value === null) delete all[key];
        else all[key] = value;
        if (stored.metadata) stored.metadata.annotations = all;
      }
    });
  }

  const allNew = (uid: string) => () =>
    images(harness, uid).join() === NODES.map(() => V2).join() && allReady(harness, uid);

  it('maxUnavailable 2: never more than 2 nodes unavailable, all updated, status recounted', async () => {
    const ds = await converged('unavail', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    });
    const uid = ds.metadata?.uid ?? '';
    const watch = watchExtremes(harness, uid);
    newImage(ds);
    await resyncUntil(harness, ds, 'all updated', allNew(uid));
    const worst = watch.stop();
    expect(worst.unavailable).toBe(2);
    await resyncUntil(
      harness,
      ds,
      'status',
      () => storedDaemonSet(harness, 'default', 'unavail')?.status?.updatedNumberScheduled === 6,
    );
    expect(storedDaemonSet(harness, 'default', 'unavail')?.status).toMatchObject({
      desiredNumberScheduled: 6,
      currentNumberScheduled: 6,
      updatedNumberScheduled: 6,
      numberReady: 6,
      numberAvailable: 6,
      observedGeneration: 2,
    });
  });

  it('maxSurge 2: never a node unavailable, at most 2 surged nodes', async () => {
    const ds = await converged('surge', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 2 } },
    });
    const uid = ds.metadata?.uid ?? '';
    const watch = watchExtremes(harness, uid);
    newImage(ds);
    await resyncUntil(harness, ds, 'all updated', () => allNew(uid)() && podsOf(harness, uid).length === 6);
    const worst = watch.stop();
    expect(worst.unavailable).toBe(0);
    expect(worst.surged).toBeLessThanOrEqual(2);
    expect(worst.surged).toBeGreaterThan(0);
  });

  it('OnDelete: nothing is replaced until a pod is deleted', async () => {
    const ds = await converged('ondelete', { updateStrategy: { type: 'OnDelete' } });
    const uid = ds.metadata?.uid ?? '';
    newImage(ds);
    await syncThreeTimes(ds);
    expect(images(harness, uid).filter((image) => image === V2)).toHaveLength(0);
    const victim = podsOf(harness, uid).find((pod) => pod.spec?.nodeName === 'n1');
    harness.sim.store.delete('pods', 'default', victim?.metadata?.name ?? '');
    await harness.send(pairMessage(ds, 'n1'));
    await harness.quiet();
    await waitFor('n1 recreated', () => placementOf(harness, uid).join() === NODES.join());
    expect(
      podsOf(harness, uid)
        .filter((pod) => imageOf(pod) === V2)
        .map((pod) => pod.spec?.nodeName ?? 'pending'),
    ).toHaveLength(1);
  });

  it('strict: unavailable old pods are replaced within maxUnavailable too', async () => {
    const ds = await converged('strict', {
      image: 'everynode.dev/sim:unready',
      annotations: { 'everynode.dev/strict': 'true' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    });
    const uid = ds.metadata?.uid ?? '';
    const watch = watchExtremes(harness, uid);
    newImage(ds);
    await resyncUntil(harness, ds, 'all updated', allNew(uid));
    expect(watch.stop().replacing).toBeLessThanOrEqual(1);
  });

  it('partition 2: two nodes keep the old revision', async () => {
    const ds = await converged('partition', {
      annotations: { 'everynode.dev/partition': '2' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    });
    const uid = ds.metadata?.uid ?? '';
    newImage(ds);
    await resyncUntil(
      harness,
      ds,
      'four updated',
      () => images(harness, uid).filter((i) => i === V2).length === 4 && allReady(harness, uid),
    );
    for (let i = 0; i < 2; i++) {
      await harness.send(daemonSetMessage(ds));
      await harness.quiet();
    }
    expect(images(harness, uid).filter((image) => image === V2)).toHaveLength(4);
    expect(storedDaemonSet(harness, 'default', 'partition')?.status?.updatedNumberScheduled).toBe(4);
  });

  it('paused: nothing is replaced until resumed', async () => {
    const ds = await converged('paused', { annotations: { 'everynode.dev/paused': 'true' } });
    const uid = ds.metadata?.uid ?? '';
    newImage(ds);
    await syncThreeTimes(ds);
    expect(images(harness, uid).filter((image) => image === V2)).toHaveLength(0);
    updateDaemonSet(harness, 'default', 'paused', (stored) => {
      if (stored.metadata?.annotations) delete stored.metadata.annotations['everynode.dev/paused'];
    });
    await resyncUntil(harness, ds, 'all updated', allNew(uid));
  });
});
