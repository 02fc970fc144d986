/**
 * The revision step of the DaemonSet step against the simulated cluster through the real client:
 * it creates the current ControllerRevision, a new one numbered higher for a new template,
 * renumbers the old one on a rollback (upstream constructHistory), deletes history beyond
 * revisionHistoryLimit that no pod uses, claims revisions by selector, and plans again once after
 * losing a race on a stale list.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerOf } from '../../../lib/core/controller-ref.ts';
import {
  controllerRevisionFor,
  revisionHashOf,
  revisionMatches,
} from '../../../lib/core/controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import { syncRevisionHistory } from '../../../lib/reconcile/daemon-set-step/sync-revision-history.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet, aPod, type DaemonSetOptions } from '../../support/builders.ts';
import { createDaemonSet, updateDaemonSet } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

const REVISIONS = 'apps/controllerrevisions';

describe('syncRevisionHistory against the API server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [], pollWork: false });
  });
  afterAll(async () => harness?.stop());

  const read = async (name: string) =>
    (await harness.deps.ports.kube.getDaemonSet('default', name)) as DaemonSet;
  /** The revisions the DaemonSet `uid` controls as stored now, by number. */
  const historyOf = (uid: string) =>
    (harness.sim.store.list(REVISIONS) as unknown as V1ControllerRevision[])
      .filter((r) => controllerOf(r)?.uid === uid)
      .sort((a, b) => a.revision - b.revision);
  /** The DaemonSet's revision step on a fresh LIST of the namespace's revisions, as the step runs it. */
  const sync = async (name: string, pods: V1Pod[] = []) => {
    const ds = await read(name);
    const revisions = await harness.deps.ports.kube.listControllerRevisions('default');
    return syncRevisionHistory(harness.deps, ds, revisions.items, pods);
  };
  const setImage = (name: string, image: string) =>
    updateDaemonSet(harness, 'default', name, (ds) => {
      const container = ds.spec?.template.spec?.containers[0];
      if (container) container.image = image;
    });
  const start = (name: string, options: DaemonSetOptions = {}) =>
    createDaemonSet(harness, aDaemonSet(name, options)).metadata?.uid ?? '';
  const writes = () =>
    ['create', 'update', 'delete'].reduce(
      (sum, verb) =>
        sum + harness.sim.counters.total({ verb, resource: REVISIONS, userAgent: RECONCILE_USER_AGENT }),
      0,
    );

  it('creates the current revision, numbered 1 and controlled by the DaemonSet, and then writes nothing', async () => {
    const uid = start('first');
    const result = await sync('first');
    expect(result.report.revisionWrites).toBe(1);
    expect(result.collisionCount).toBe(0);
    const [stored, ...more] = historyOf(uid);
    expect(more).toEqual([]);
    expect(stored?.revision).toBe(1);
    expect(stored?.metadata?.name).toBe(`first-${result.currentHash}`);
    expect(stored?.metadata?.labels).toMatchObject({
      app: 'first',
      [CONTROLLER_REVISION_HASH_LABEL]: result.currentHash,
    });
    expect(controllerOf(stored ?? {})).toMatchObject({ kind: 'DaemonSet', name: 'first', controller: true });
    expect(revisionMatches(await read('first'), stored as V1ControllerRevision)).toBe(true);

    const before = writes();
    const again = await sync('first');
    expect(again).toMatchObject({ currentHash: result.currentHash, report: { revisionWrites: 0 } });
    expect(writes()).toBe(before);
  });

  it('creates a second revision with a higher number for a new template', async () => {
    const uid = start('changed');
    const v1 = await sync('changed');
    setImage('changed', 'busybox:1.37');
    const v2 = await sync('changed');
    expect(v2.currentHash).not.toBe(v1.currentHash);
    expect(v2.report.revisionWrites).toBe(1);
    expect(historyOf(uid).map((r) => [revisionHashOf(r), r.revision])).toEqual([
      [v1.currentHash, 1],
      [v2.currentHash, 2],
    ]);
  });

  it('renumbers the old revision on a rollback to its template instead of creating another', async () => {
    const uid = start('rollback');
    const v1 = await sync('rollback');
    setImage('rollback', 'busybox:1.37');
    const v2 = await sync('rollback');
    setImage('rollback', 'busybox:1.36');
    const back = await sync('rollback');
    expect(back.currentHash).toBe(v1.currentHash);
    expect(back.report.revisionWrites).toBe(1);
    expect(
      harness.sim.store.list(REVISIONS).filter((r) => r.metadata.name === `rollback-${v1.currentHash}`),
    ).toHaveLength(1);
    expect(historyOf(uid).map((r) => [revisionHashOf(r), r.revision])).toEqual([
      [v2.currentHash, 2],
      [v1.currentHash, 3],
    ]);
    expect((await sync('rollback')).report.revisionWrites).toBe(0);
  });

  it('deletes the oldest revisions beyond revisionHistoryLimit, sparing one a pod still runs', async () => {
    const uid = start('limited', { revisionHistoryLimit: 1 });
    const v1 = await sync('limited');
    setImage('limited', 'busybox:1.37');
    const v2 = await sync('limited');
    setImage('limited', 'busybox:1.38');
    const v3 = await sync('limited');
    // One old revision kept: the oldest, v1, is deleted (a create and a delete).
    expect(v3.report.revisionWrites).toBe(2);
    expect(historyOf(uid).map(revisionHashOf)).toEqual([v2.currentHash, v3.currentHash]);

    // A pod still runs v2: the oldest no pod runs goes instead, v3.
    const running = aPod('limited-n1', {
      labels: { app: 'limited', [CONTROLLER_REVISION_HASH_LABEL]: v2.currentHash },
    });
    setImage('limited', 'busybox:1.39');
    const v4 = await sync('limited', [running]);
    expect(historyOf(uid).map(revisionHashOf)).toEqual([v2.currentHash, v4.currentHash]);
    expect(v4.report.revisionWrites).toBe(2);
    expect(v1.currentHash).not.toBe(v2.currentHash);
  });

  it('adopts an orphan revision holding its template instead of creating one, and releases one it no longer selects', async () => {
    const uid = start('claims');
    const ds = await read('claims');
    const orphan = controllerRevisionFor(ds, 1);
    delete orphan.metadata?.ownerReferences;
    harness.sim.store.create(REVISIONS, orphan as unknown as KubeObject);
    const foreign = controllerRevisionFor(ds, 7);
    if (foreign.metadata) {
      foreign.metadata.name = 'claims-unselected';
      foreign.metadata.labels = { app: 'elsewhere' };
    }
    harness.sim.store.create(REVISIONS, foreign as unknown as KubeObject);

    const creates = harness.sim.counters.total({
      verb: 'create',
      resource: REVISIONS,
      userAgent: RECONCILE_USER_AGENT,
    });
    const result = await sync('claims');
    expect(
      harness.sim.counters.total({ verb: 'create', resource: REVISIONS, userAgent: RECONCILE_USER_AGENT }),
    ).toBe(creates);
    expect(result.currentHash).toBe(revisionHashOf(orphan));
    expect(historyOf(uid).map((r) => r.metadata?.name)).toEqual([orphan.metadata?.name]);
    const released = harness.sim.store.get(REVISIONS, 'default', 'claims-unselected');
    expect(released?.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('plans once more after a stale list made it create a revision that exists', async () => {
    const uid = start('stale');
    const first = await sync('stale');
    const ds = await read('stale');
    const result = await syncRevisionHistory(harness.deps, ds, [], []);
    expect(result.currentHash).toBe(first.currentHash);
    expect(result.report).toMatchObject({ conflicts: 1, revisionWrites: 0 });
    expect(historyOf(uid)).toHaveLength(1);
  });
});
