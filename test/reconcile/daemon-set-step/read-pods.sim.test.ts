/**
 * How the DaemonSet step reads its pods, against the simulated cluster through the real client:
 * a LIST unless the trigger named a pod version and the process keeps a young table read with the
 * same selector, which one watch then catches up. What test/reconcile/memory/kept-pod-lists.sim.test.ts
 * and caught-up-reads.sim.test.ts leave out: no version, a table too old or read with another
 * selector, a LIST too small to keep, and what `willCatchUp` predicts for each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { isAtLeast } from '../../../lib/kube/resource-version.ts';
import {
  POD_LIST_REUSE_MS,
  readDaemonSetPods,
  willCatchUp,
} from '../../../lib/reconcile/daemon-set-step/read-pods.ts';
import type { DepsPart } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { KEPT_PODS_BUDGET, KeptPodLists } from '../../../lib/reconcile/memory/kept-pod-lists.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';
import { createDaemonSet, isReady, waitFor } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { stripServerFields } from '../../support/runtime-harness.ts';

const NODES = ['n1', 'n2', 'n3'];
const QUERY = 'default/app=reader';

describe('readDaemonSetPods against the API server', () => {
  let harness: Harness;
  let ds: DaemonSet;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
    const created = createDaemonSet(harness, aDaemonSet('reader'));
    for (const node of NODES) addPod(created, `reader-${node}`, node);
    await waitFor('pods ready', () =>
      NODES.every((node) => isReady(harness.sim.store.get('pods', 'default', `reader-${node}`) ?? {})),
    );
    ds = (await harness.deps.ports.kube.getDaemonSet('default', 'reader')) as DaemonSet;
  });
  afterAll(async () => harness?.stop());

  /** Creates a pod of `owner` on `node`; resolves to its resourceVersion. */
  function addPod(owner: DaemonSet, name: string, node: string): string {
    const made = harness.sim.store.create('pods', stripServerFields(aPod(name, { owner, nodeName: node })));
    return made.metadata.resourceVersion ?? '';
  }
  const uid = () => ds.metadata?.uid ?? '';
  /** The read's deps: the harness's client, `keptPods`, and the clock (fixed at `at` when given). */
  const depsOf = (keptPods: KeptPodLists, at?: number): DepsPart<'kube', 'keptPods'> => ({
    ports: harness.deps.ports,
    memory: { keptPods },
    clock: () => new Date(at ?? Date.now()),
  });
  const count = (verb: string) =>
    harness.sim.counters.total({ verb, resource: 'pods', userAgent: RECONCILE_USER_AGENT });
  /** The read and the pod LISTs and watches it made. */
  const read = async (deps: DepsPart<'kube', 'keptPods'>, podsVersion?: string) => {
    const [lists, watches] = [count('list'), count('watch')];
    const pods = await readDaemonSetPods(deps, ds, podsVersion);
    return { pods, lists: count('list') - lists, watches: count('watch') - watches };
  };
  const names = (pods: { items: { metadata?: { name?: string } }[] }) =>
    pods.items.map((pod) => pod.metadata?.name).sort();

  it('lists without a pod version, kept table or not, and keeps the fresh LIST in place of the old table', async () => {
    const kept = new KeptPodLists(KEPT_PODS_BUDGET, 0);
    const deps = depsOf(kept);
    const first = await read(deps);
    expect(first).toMatchObject({ lists: 1, watches: 0, pods: { kept: false } });
    expect(names(first.pods)).toEqual(['reader-n1', 'reader-n2', 'reader-n3']);
    const table = kept.peek(uid(), QUERY);
    expect(table?.pods.size).toBe(3);
    expect(table?.resourceVersion).toBe(first.pods.resourceVersion);
    expect(willCatchUp(deps, ds, undefined)).toBe(false);

    const second = await read(deps);
    expect(second).toMatchObject({ lists: 1, watches: 0, pods: { kept: false } });
    expect(kept.peek(uid(), QUERY)).not.toBe(table);
    expect(kept.peek(uid(), QUERY)?.pods.size).toBe(3);
  });

  it('catches a young table up by one watch for a pod version, seeing the pod made since its LIST', async () => {
    const kept = new KeptPodLists(KEPT_PODS_BUDGET, 0);
    const deps = depsOf(kept);
    await read(deps);
    const version = addPod(ds, 'reader-extra', 'n1');
    expect(willCatchUp(deps, ds, version)).toBe(true);
    // Predicting takes nothing out.
    expect(kept.peek(uid(), QUERY)).toBeDefined();
    const caughtUp = await read(deps, version);
    expect(caughtUp).toMatchObject({ lists: 0, watches: 1, pods: { kept: true } });
    expect(names(caughtUp.pods)).toContain('reader-extra');
    expect(caughtUp.pods.items).toHaveLength(4);
    expect(isAtLeast(caughtUp.pods.resourceVersion, version)).toBe(true);
    // The caught-up table is put back for the next step.
    expect(kept.peek(uid(), QUERY)?.pods.size).toBe(4);
    harness.sim.store.delete('pods', 'default', 'reader-extra', { gracePeriodSeconds: 0 });
  });

  it('catches a table up until POD_LIST_REUSE_MS after its LIST began, and lists after that', async () => {
    const kept = new KeptPodLists(KEPT_PODS_BUDGET, 0);
    const listedAt = Date.now();
    const first = await read(depsOf(kept, listedAt));
    const version = first.pods.resourceVersion;
    expect(willCatchUp(depsOf(kept, listedAt + POD_LIST_REUSE_MS), ds, version)).toBe(true);
    const late = depsOf(kept, listedAt + POD_LIST_REUSE_MS + 1);
    expect(willCatchUp(late, ds, version)).toBe(false);

    const listed = await read(late, version);
    expect(listed).toMatchObject({ lists: 1, watches: 0, pods: { kept: false } });
    expect(names(listed.pods)).toEqual(['reader-n1', 'reader-n2', 'reader-n3']);
    // The fresh LIST is kept from the time it began: young again.
    expect(kept.peek(uid(), QUERY)?.listedAt).toBe(listedAt + POD_LIST_REUSE_MS + 1);
    expect(willCatchUp(late, ds, version)).toBe(true);
  });

  it('lists when the kept table was read with another selector, and keeps the LIST under the new one', async () => {
    const kept = new KeptPodLists(KEPT_PODS_BUDGET, 0);
    const deps = depsOf(kept);
    const first = await read(deps);
    const table = kept.peek(uid(), QUERY);
    if (table === undefined) throw new Error('no table kept');
    kept.put(uid(), { ...table, query: 'default/app=before' });
    expect(willCatchUp(deps, ds, first.pods.resourceVersion)).toBe(false);
    const listed = await read(deps, first.pods.resourceVersion);
    expect(listed).toMatchObject({ lists: 1, watches: 0, pods: { kept: false } });
    expect(kept.peek(uid(), 'default/app=before')).toBeUndefined();
    expect(kept.peek(uid(), QUERY)?.pods.size).toBe(3);
  });

  it('keeps no table of a LIST below the threshold, so a pod version still lists', async () => {
    const kept = new KeptPodLists();
    const deps = depsOf(kept);
    const first = await read(deps);
    expect(first).toMatchObject({ lists: 1, pods: { kept: false } });
    expect(kept.size).toBe(0);
    expect(willCatchUp(deps, ds, first.pods.resourceVersion)).toBe(false);
    expect(await read(deps, first.pods.resourceVersion)).toMatchObject({ lists: 1, watches: 0 });
  });
});
