/**
 * The current revision hash of the steps that do not run the revision step (unhinted pairs, node
 * steps), against the simulated cluster through the real client: planned from one LIST of the
 * namespace's ControllerRevisions as the DaemonSet step plans, then served from the process cache
 * while the DaemonSet's generation and collisionCount stand; at most one LIST per namespace for
 * several DaemonSets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerRevisionFor, revisionHashOf } from '../../../lib/core/controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import { templateHash } from '../../../lib/core/template-hash.ts';
import { syncRevisionHistory } from '../../../lib/reconcile/daemon-set-step/sync-revision-history.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { ObjectCache } from '../../../lib/reconcile/memory/object-cache.ts';
import { currentRevisionHash, currentRevisionHashes } from '../../../lib/reconcile/reads/revision-hash.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { createDaemonSet, daemonSetKey, updateDaemonSet } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

describe('currentRevisionHash against the API server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [], pollWork: false });
  });
  afterAll(async () => harness?.stop());

  /** The harness's deps with a process cache of their own: each case starts with nothing cached. */
  const freshDeps = (): ReconcileDeps => ({
    ...harness.deps,
    memory: { ...harness.deps.memory, objects: new ObjectCache() },
  });
  const read = async (name: string, namespace = 'default') =>
    (await harness.deps.ports.kube.getDaemonSet(namespace, name)) as DaemonSet;
  const lists = () =>
    harness.sim.counters.total({
      verb: 'list',
      resource: 'apps/controllerrevisions',
      userAgent: RECONCILE_USER_AGENT,
    });
  /** `work`'s result and the revision LISTs it made. */
  const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; lists: number }> => {
    const before = lists();
    const value = await work();
    return { value, lists: lists() - before };
  };

  it('plans the hash of the revision the step will create from one LIST, then serves it from the cache', async () => {
    createDaemonSet(harness, aDaemonSet('unwritten'));
    const deps = freshDeps();
    const ds = await read('unwritten');
    const first = await counted(() => currentRevisionHash(deps, ds));
    expect(first).toEqual({ value: templateHash(ds.spec?.template ?? {}), lists: 1 });
    expect(await counted(() => currentRevisionHash(deps, ds))).toEqual({ value: first.value, lists: 0 });
    // The DaemonSet step then writes the revision of that very hash.
    const revisions = await harness.deps.ports.kube.listControllerRevisions('default');
    expect((await syncRevisionHistory(deps, ds, revisions.items, [])).currentHash).toBe(first.value);
  });

  it('takes the hash of the revision holding the template, whatever hash its name was made from', async () => {
    createDaemonSet(harness, aDaemonSet('adopted'));
    const ds = await read('adopted');
    const upstream = controllerRevisionFor(ds, 1);
    if (upstream.metadata) {
      upstream.metadata.name = 'adopted-5d8f7c9b6';
      upstream.metadata.labels = { app: 'adopted', [CONTROLLER_REVISION_HASH_LABEL]: '5d8f7c9b6' };
    }
    harness.sim.store.create('apps/controllerrevisions', upstream as unknown as KubeObject);
    const hash = await currentRevisionHash(freshDeps(), ds);
    expect(hash).toBe('5d8f7c9b6');
    expect(hash).not.toBe(templateHash(ds.spec?.template ?? {}));
  });

  it('lists again for a new generation, not for a status write', async () => {
    createDaemonSet(harness, aDaemonSet('moving'));
    const deps = freshDeps();
    const v1 = await counted(async () => currentRevisionHash(deps, await read('moving')));
    expect(v1.lists).toBe(1);

    harness.sim.store.mutate(
      daemonSetKey(harness.managedKind),
      'default',
      'moving',
      (obj) => {
        obj.status = { ...(obj.status as object), numberReady: 1, desiredNumberScheduled: 1 };
      },
      { subresource: 'status' },
    );
    const statusWritten = await read('moving');
    expect(statusWritten.status?.numberReady).toBe(1);
    expect(await counted(() => currentRevisionHash(deps, statusWritten))).toEqual({
      value: v1.value,
      lists: 0,
    });

    const updated = updateDaemonSet(harness, 'default', 'moving', (ds) => {
      const container = ds.spec?.template.spec?.containers[0];
      if (container) container.image = 'busybox:1.37';
    });
    expect(updated.metadata?.generation).toBe(2);
    const v2 = await counted(async () => currentRevisionHash(deps, await read('moving')));
    expect(v2.lists).toBe(1);
    expect(v2.value).not.toBe(v1.value);
    expect(v2.value).toBe(revisionHashOf(controllerRevisionFor(await read('moving'), 2)));
  });

  it('lists at most once per namespace for the DaemonSets not cached, answering in order', async () => {
    for (const [name, namespace] of [
      ['many-a', 'default'],
      ['many-b', 'default'],
      ['many-c', 'elsewhere'],
    ] as const)
      createDaemonSet(harness, aDaemonSet(name, { namespace }));
    const all = [await read('many-a'), await read('many-b'), await read('many-c', 'elsewhere')];
    const expected = all.map((ds) => templateHash(ds.spec?.template ?? {}));
    expect(new Set(expected).size).toBe(3);

    const deps = freshDeps();
    expect(await counted(() => currentRevisionHashes(deps, all))).toEqual({ value: expected, lists: 2 });
    expect(await counted(() => currentRevisionHashes(deps, all))).toEqual({ value: expected, lists: 0 });

    // Only `many-b` unknown to a process: one LIST, of its namespace.
    const partly = freshDeps();
    const [a, b, c] = all as [DaemonSet, DaemonSet, DaemonSet];
    partly.memory.objects.putRevisionHash(a, expected[0] ?? '');
    partly.memory.objects.putRevisionHash(c, expected[2] ?? '');
    expect(await counted(() => currentRevisionHashes(partly, [a, b, c]))).toEqual({
      value: expected,
      lists: 1,
    });
    expect(await counted(() => currentRevisionHashes(partly, []))).toEqual({ value: [], lists: 0 });
  });
});
