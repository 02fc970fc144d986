import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMONSET_UID_LABEL } from '../../lib/core/daemon-set.ts';
import { FAILURE_BACKOFF_ANNOTATION } from '../../lib/core/failure-backoff.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetKey,
  daemonSetMessage,
  pairMessage,
  placementOf,
  podsOf,
  storedDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, type HarnessOptions, startReconcileHarness } from '../support/reconcile-harness.ts';

const created = (pod: V1Pod) => new Date(String(pod.metadata?.creationTimestamp)).getTime();

describe('daemon pods', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.stop();
    harness = undefined;
  });
  async function start(options: HarnessOptions): Promise<Harness> {
    harness = await startReconcileHarness(options);
    return harness;
  }

  it('a failed pod is replaced, each replacement after a doubling backoff', async () => {
    const h = await start({
      nodes: [aNode('n1')],
      timing: { containerExitSeconds: 10 },
    });
    const ds = createDaemonSet(h, aDaemonSet('flaky', { image: 'everynode.dev/sim:fail' }));
    const uid = ds.metadata?.uid ?? '';
    await h.send(daemonSetMessage(ds));
    const reported = new Set<string>();
    const seen = new Map<string, V1Pod>();
    // The router's rule: a pod turning Failed becomes a pair message.
    const pump = setInterval(() => {
      for (const pod of podsOf(h, uid)) {
        const podUid = pod.metadata?.uid ?? '';
        seen.set(podUid, pod);
        if (pod.status?.phase === 'Failed' && !reported.has(podUid)) {
          reported.add(podUid);
          void h.send(pairMessage(ds, 'n1'));
        }
      }
    }, 20);
    try {
      await waitFor(
        'the third replacement',
        () =>
          [...seen.values()].some((pod) => pod.metadata?.annotations?.[FAILURE_BACKOFF_ANNOTATION] === '1/3'),
        20_000,
      );
    } finally {
      clearInterval(pump);
    }
    const lineage = [...seen.values()].sort((a, b) => created(a) - created(b)).slice(0, 4);
    expect(lineage.map((pod) => pod.metadata?.annotations?.[FAILURE_BACKOFF_ANNOTATION])).toEqual([
      undefined,
      '1/1',
      '1/2',
      '1/3',
    ]);
    const [, first, second, third] = lineage.map(created) as number[];
    // Timestamps have whole seconds: a wait of n seconds shows as a difference of at least n.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1000);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(2000);
    await h.quiet();
    expect(
      podsOf(h, uid).filter((pod) => !pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Failed')
        .length,
    ).toBeLessThanOrEqual(1);
  });

  it('excess pods on a node are trimmed, keeping the oldest', async () => {
    const h = await start({ nodes: [aNode('n1'), aNode('n2')] });
    const ds = createDaemonSet(h, aDaemonSet('agent'));
    const uid = ds.metadata?.uid ?? '';
    await h.send(daemonSetMessage(ds));
    await waitFor('placed', () => placementOf(h, uid).join() === 'n1,n2' && allReady(h, uid));
    const original = podsOf(h, uid).find((pod) => pod.spec?.nodeName === 'n1') as V1Pod;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const copy = JSON.parse(JSON.stringify(original)) as KubeObject;
    copy.metadata = { ...copy.metadata, name: `${original.metadata?.name}-extra` };
    delete copy.metadata.uid;
    delete copy.metadata.resourceVersion;
    delete copy.metadata.creationTimestamp;
    delete copy.status;
    h.sim.store.create('pods', copy);
    await waitFor('two pods on n1', () => placementOf(h, uid).join() === 'n1,n1,n2');
    await h.send(pairMessage(ds, 'n1'));
    await h.quiet();
    const live = podsOf(h, uid).filter(
      (pod) => !pod.metadata?.deletionTimestamp && pod.spec?.nodeName === 'n1',
    );
    expect(live.map((pod) => pod.metadata?.uid)).toEqual([original.metadata?.uid]);
  });

  it('orphans matching the selector are adopted instead of duplicated', async () => {
    const h = await start({ nodes: [aNode('n1'), aNode('n2'), aNode('n3')] });
    const ds = createDaemonSet(h, aDaemonSet('agent'));
    const hash = templateHash(ds.spec?.template ?? {});
    const orphans = ['n1', 'n2'].map((node) =>
      h.sim.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `orphan-${node}`,
          namespace: 'default',
          labels: { app: 'agent', 'controller-revision-hash': hash },
        },
        spec: { nodeName: node, containers: [{ name: 'main', image: 'busybox:1.36' }] },
      }),
    );
    await waitFor('orphans running', () =>
      orphans.every((o) => h.sim.store.get('pods', 'default', o.metadata.name ?? '')?.status),
    );
    await h.send(daemonSetMessage(ds));
    await waitFor('placed', () => placementOf(h, ds.metadata?.uid ?? '').join() === 'n1,n2,n3');
    await h.quiet();
    const owned = podsOf(h, ds.metadata?.uid ?? '').filter((pod) => !pod.metadata?.deletionTimestamp);
    expect(
      owned
        .filter((pod) => pod.metadata?.name?.startsWith('orphan-'))
        .map((pod) => pod.spec?.nodeName)
        .sort(),
    ).toEqual(['n1', 'n2']);
    expect(owned).toHaveLength(3);
    // Adopted pods carry the DaemonSet uid label, so the relay follows them like created ones.
    expect(owned.map((pod) => pod.metadata?.labels?.[DAEMONSET_UID_LABEL])).toEqual(
      owned.map(() => ds.metadata?.uid),
    );
  });

  it('a pod whose labels no longer match the selector is released and replaced', async () => {
    const h = await start({ nodes: [aNode('n1'), aNode('n2')] });
    const ds = createDaemonSet(h, aDaemonSet('agent'));
    const uid = ds.metadata?.uid ?? '';
    await h.send(daemonSetMessage(ds));
    await waitFor('placed', () => placementOf(h, uid).join() === 'n1,n2' && allReady(h, uid));
    const victim = podsOf(h, uid).find((pod) => pod.spec?.nodeName === 'n1') as V1Pod;
    h.sim.store.mutate('pods', 'default', victim.metadata?.name ?? '', (pod) => {
      pod.metadata.labels = { ...pod.metadata.labels, app: 'debugging' };
    });
    await h.send(daemonSetMessage(ds));
    await waitFor(
      'replaced',
      () =>
        placementOf(h, uid).join() === 'n1,n2' &&
        !podsOf(h, uid).some((pod) => pod.metadata?.uid === victim.metadata?.uid),
    );
    await h.quiet();
    const released = h.sim.store.get('pods', 'default', victim.metadata?.name ?? '') as unknown as V1Pod;
    expect(released.metadata?.ownerReferences ?? []).toEqual([]);
    expect(released.metadata?.labels?.[DAEMONSET_UID_LABEL]).toBeUndefined();
    expect(released.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('after a cascade-orphan delete, a new DaemonSet with a matching selector adopts the pods', async () => {
    const h = await start({ nodes: [aNode('n1'), aNode('n2')] });
    const first = createDaemonSet(h, aDaemonSet('agent'));
    await h.send(daemonSetMessage(first));
    await waitFor(
      'placed',
      () =>
        placementOf(h, first.metadata?.uid ?? '').join() === 'n1,n2' &&
        allReady(h, first.metadata?.uid ?? ''),
    );
    await h.quiet();
    const before = podsOf(h, first.metadata?.uid ?? '')
      .map((pod) => pod.metadata?.uid)
      .sort();
    h.sim.store.delete(daemonSetKey(h.managedKind), 'default', 'agent', { propagationPolicy: 'Orphan' });
    await waitFor('pods orphaned', () =>
      (h.sim.store.list('pods') as unknown as V1Pod[]).every(
        (pod) => (pod.metadata?.ownerReferences ?? []).length === 0,
      ),
    );
    const second = createDaemonSet(h, aDaemonSet('agent'));
    await h.send(daemonSetMessage(second));
    await waitFor('adopted', () => podsOf(h, second.metadata?.uid ?? '').length === 2);
    await h.quiet();
    await h.send(daemonSetMessage(second));
    await h.quiet();
    expect(
      podsOf(h, second.metadata?.uid ?? '')
        .map((pod) => pod.metadata?.uid)
        .sort(),
    ).toEqual(before);
    expect(
      podsOf(h, second.metadata?.uid ?? '').map((pod) => pod.metadata?.labels?.[DAEMONSET_UID_LABEL]),
    ).toEqual([second.metadata?.uid, second.metadata?.uid]);
    expect(storedDaemonSet(h, 'default', 'agent')?.status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberReady: 2,
    });
  });
});
