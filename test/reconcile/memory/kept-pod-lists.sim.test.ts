import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../../lib/kube/errors/kube-api-errors.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { catchUpPods } from '../../../lib/reconcile/daemon-set-step/catch-up-pods.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import {
  applyPodEvent,
  KEPT_PODS_BUDGET,
  KEPT_PODS_MIN,
  KeptPodLists,
  type KeptPods,
  keptPodsOf,
} from '../../../lib/reconcile/memory/kept-pod-lists.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { newestVersion, startKeptReadsHarness } from '../../support/kept-reads-harness.ts';
import { podsOf } from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3'];

/** A kept table of `count` pods under query `q`. */
function tableOf(count: number, q = 'default/app=a'): KeptPods {
  const pods = new Map<string, V1Pod>();
  for (let i = 0; i < count; i += 1) pods.set(`p${i}`, { metadata: { uid: `p${i}` } });
  return { query: q, pods, resourceVersion: '1', listedAt: 0, deleting: new Map() };
}

describe('the kept pod tables of a process', () => {
  it('hand a table out once, only for the query it was read with', () => {
    const kept = new KeptPodLists(100);
    kept.put('a', tableOf(3));
    expect(kept.take('a', 'default/app=b')).toBeUndefined();
    expect(kept.take('a', 'default/app=a')).toBeUndefined();
    kept.put('a', tableOf(3));
    expect(kept.take('a', 'default/app=a')?.pods.size).toBe(3);
    expect(kept.take('a', 'default/app=a')).toBeUndefined();
    expect(kept.size).toBe(0);
  });

  it('drop the least recently kept tables beyond their pod budget, never the one just kept', () => {
    const kept = new KeptPodLists(10);
    kept.put('a', tableOf(4));
    kept.put('b', tableOf(4));
    kept.put('c', tableOf(4));
    expect(kept.size).toBe(8);
    expect(kept.take('a', 'default/app=a')).toBeUndefined();
    kept.put('big', tableOf(20));
    expect(kept.size).toBe(20);
    expect(kept.take('big', 'default/app=a')?.pods.size).toBe(20);
  });
});

describe('which pod LISTs are kept', () => {
  it('those of at least the threshold, 500 pods unless set lower', () => {
    expect(new KeptPodLists().worthKeeping(KEPT_PODS_MIN - 1)).toBe(false);
    expect(new KeptPodLists().worthKeeping(KEPT_PODS_MIN)).toBe(true);
    expect(new KeptPodLists(KEPT_PODS_BUDGET, 0).worthKeeping(3)).toBe(true);
  });
});

describe("a kept table's own creates", () => {
  it('raise the version a catch-up reads to, never lower it', () => {
    const kept = new KeptPodLists(100);
    expect(kept.catchUpTarget('a', '50')).toBe('50');
    kept.noteWritten('a', '70');
    kept.noteWritten('a', '60');
    expect(kept.catchUpTarget('a', '50')).toBe('70');
    expect(kept.catchUpTarget('a', '80')).toBe('80');
    expect(kept.catchUpTarget('b', '50')).toBe('50');
  });
});

describe("a kept table's own deletes", () => {
  it('show as being deleted until their DELETED event comes', () => {
    const kept = new KeptPodLists(100);
    const table = tableOf(2);
    kept.put('a', table);
    const at = new Date('2026-12-02T08:00:00Z');
    kept.noteDeleting('a', 'p0', at);
    kept.noteDeleting('unknown', 'p1', at);
    expect(keptPodsOf(table).map((p) => p.metadata?.deletionTimestamp)).toEqual([at, undefined]);
    // An older change of the pod, replayed by the catch-up, does not bring it back to life.
    applyPodEvent(table, {
      type: 'MODIFIED',
      object: { metadata: { uid: 'p0', name: 'x' } },
      resourceVersion: '2',
    });
    expect(keptPodsOf(table)[0]?.metadata).toEqual({ uid: 'p0', name: 'x', deletionTimestamp: at });
    applyPodEvent(table, { type: 'DELETED', object: { metadata: { uid: 'p0' } }, resourceVersion: '3' });
    expect(keptPodsOf(table).map((p) => p.metadata?.uid)).toEqual(['p1']);
    expect(table.deleting.size).toBe(0);
    expect(table.resourceVersion).toBe('3');
  });
});

describe('a DaemonSet step catches its kept pods up by a watch', () => {
  let harness: Harness;
  let message: DaemonSetMessage;
  beforeAll(async () => {
    ({ harness, message } = await startKeptReadsHarness(NODES));
  });
  afterAll(async () => harness?.stop());

  const pods = () => podsOf(harness, message.daemonSet.uid ?? '');
  const count = (verb: string) =>
    harness.sim.counters.total({ verb, resource: 'pods', userAgent: RECONCILE_USER_AGENT });
  /** One step of `message` with `podsVersion`; resolves to the pod LISTs and watches it made. */
  const step = async (podsVersion?: string) => {
    const [lists, watches] = [count('list'), count('watch')];
    const stamped = podsVersion === undefined ? message : { ...message, podsVersion };
    await reconcileDaemonSet(harness.deps, stamped, Date.now());
    return { lists: count('list') - lists, watches: count('watch') - watches };
  };
  const status = () =>
    (harness.sim.store.get('apps/daemonsets', 'default', 'agent') as KubeObject).status as {
      currentNumberScheduled?: number;
      desiredNumberScheduled?: number;
    };

  it('lists without a version, plans on the kept table for a version it covers, watches for a newer one', async () => {
    // The DaemonSet's pods, and those it controls that no longer match its selector.
    expect(await step()).toEqual({ lists: 2, watches: 0 });
    const newest = newestVersion(pods());
    // The kept table already shows the version: still one watch (for what came since), no LIST,
    // the pods to release left to the recount that follows.
    expect(await step(newest)).toEqual({ lists: 0, watches: 1 });

    // A pod removed after the table was read: the step must see it gone.
    const gone = pods()[0] as V1Pod;
    const deleted = harness.sim.store.delete('pods', 'default', gone.metadata?.name ?? '', {
      gracePeriodSeconds: 0,
    });
    expect(await step(deleted.metadata.resourceVersion)).toEqual({ lists: 0, watches: 1 });
    expect(status()).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 2 });
  });

  it('lists when the version never comes to its watch', async () => {
    const stalled = await step('999999999');
    expect(stalled.watches).toBe(1);
    expect(stalled.lists).toBeGreaterThanOrEqual(2);
  }, 10_000);

  it('keeps its table through a watch refused with 429, and lists nothing after the Retry-After', async () => {
    expect(await step()).toEqual({ lists: 2, watches: 0 });
    const newest = newestVersion(pods());
    harness.sim.faults.setErrorRate('watch', { status: 429, rate: 1 });
    try {
      await expect(step(newest)).rejects.toBeInstanceOf(TooManyRequestsError);
    } finally {
      harness.sim.faults.setErrorRate('watch', { status: 429, rate: 0 });
    }
    expect(await step(newest)).toEqual({ lists: 0, watches: 1 });
  });

  it('drops a pod that stops matching the selector, as a LIST would', async () => {
    const listed = await harness.deps.ports.kube.listPods({
      namespace: 'default',
      labelSelector: 'app=agent',
    });
    const table: KeptPods = {
      query: 'default/app=agent',
      pods: new Map(listed.items.map((p) => [p.metadata?.uid ?? '', p])),
      resourceVersion: listed.resourceVersion,
      listedAt: Date.now(),
      deleting: new Map(),
    };
    const [moved] = listed.items as [V1Pod];
    const relabelled = harness.sim.store.update('pods', {
      ...moved,
      metadata: { ...moved.metadata, labels: { ...moved.metadata?.labels, app: 'other' } },
    } as unknown as KubeObject);
    const reached = await catchUpPods(
      harness.deps.ports.kube,
      { namespace: 'default', labelSelector: 'app=agent' },
      table,
      relabelled.metadata.resourceVersion ?? '',
    );
    expect(reached).toBe(true);
    expect(table.pods.has(moved.metadata?.uid ?? '')).toBe(false);
    expect(table.pods.size).toBe(listed.items.length - 1);
    expect(table.resourceVersion).toBe(relabelled.metadata.resourceVersion);
  });

  it('holds as being deleted only the pods whose delete the API server took', async () => {
    const newest = () => newestVersion(pods());
    await step();
    const ds = harness.sim.store.get('apps/daemonsets', 'default', 'agent') as KubeObject & {
      spec: { template: { spec: { containers: { image: string }[] } }; updateStrategy: unknown };
    };
    (ds.spec.template.spec.containers[0] as { image: string }).image = 'agent:2';
    // Room for every node at once: an earlier case left a node without its pod.
    ds.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: NODES.length } };
    const updated = harness.sim.store.update('apps/daemonsets', ds);
    const deletes = () => count('delete');
    const before = deletes();
    harness.sim.faults.setErrorRate('delete', { status: 429, rate: 1 });
    try {
      await expect(step(newest())).rejects.toBeInstanceOf(TooManyRequestsError);
    } finally {
      harness.sim.faults.setErrorRate('delete', { status: 429, rate: 0 });
    }
    expect(deletes() - before).toBeGreaterThan(0);
    // The refused delete left its pod running: the next step on the kept table deletes it.
    const refused = deletes();
    await step(newest() ?? updated.metadata.resourceVersion);
    expect(deletes() - refused).toBeGreaterThan(0);
  });
});
