/**
 * What a DaemonSet step that catches up its kept pod table reads, against the simulated cluster
 * through the real client, and what it leaves to the recount that follows it: it plans on the
 * revisions its DaemonSet's last step listed while the spec stands and no revision was written,
 * and makes no LIST of the pods it controls that no longer match its selector. A step without a
 * pod version (the recount, a resync, a DaemonSet change) reads both again.
 */
import type { V1ControllerRevision, V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerOf } from '../../../lib/core/controller-ref.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import {
  RECOUNT_REASON,
  ROLLOUT_TIMER_REASON,
  reconcileDaemonSet,
} from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { newestVersion, startKeptReadsHarness } from '../../support/kept-reads-harness.ts';
import { podsOf } from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3'];

describe('a DaemonSet step on a caught-up pod table', () => {
  let harness: Harness;
  let message: DaemonSetMessage;
  beforeAll(async () => {
    ({ harness, message } = await startKeptReadsHarness(NODES));
  });
  afterAll(async () => harness?.stop());

  const uid = () => message.daemonSet.uid ?? '';
  const pods = () => podsOf(harness, uid());
  const requests = (verb: string, resource: string) =>
    harness.sim.counters.total({ verb, resource, userAgent: RECONCILE_USER_AGENT });
  const reads = () => ({
    revisionLists: requests('list', 'apps/controllerrevisions'),
    podLists: requests('list', 'pods'),
    revisionWrites: requests('create', 'apps/controllerrevisions'),
  });
  /** The newest resourceVersion any pod has now: a trigger's version the kept table can reach. */
  const newest = () => newestVersion(harness.sim.store.list('pods') as unknown as V1Pod[]);
  /** One step, with the newest pod version (a relay trigger's step) or without (a recount). */
  const step = async (caughtUp: boolean) => {
    const before = reads();
    const stamped = caughtUp ? { ...message, podsVersion: newest() ?? '' } : message;
    await reconcileDaemonSet(harness.deps, stamped, Date.now());
    const after = reads();
    return {
      revisionLists: after.revisionLists - before.revisionLists,
      podLists: after.podLists - before.podLists,
      revisionWrites: after.revisionWrites - before.revisionWrites,
    };
  };
  /** `message` as the requeue for `reason` brings it (no versions). */
  const requeued = (reason: string): DaemonSetMessage => ({
    ...message,
    cause: { type: 'requeue', reason, requestedAt: new Date().toISOString() },
  });
  const revisionsOf = () =>
    (harness.sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[]).filter(
      (r) => controllerOf(r)?.uid === uid(),
    );

  it('plans on the last listed revisions while the spec stands, and lists them for a new generation', async () => {
    expect(await step(false)).toMatchObject({ revisionLists: 1, podLists: 2, revisionWrites: 0 });
    expect(await step(true)).toEqual({ revisionLists: 0, podLists: 0, revisionWrites: 0 });
    expect(await step(true)).toEqual({ revisionLists: 0, podLists: 0, revisionWrites: 0 });

    // A new template: the generation moves, so the step lists and writes the new revision.
    const ds = harness.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
    const template = ds.spec?.template;
    harness.sim.store.update('apps/daemonsets', {
      ...ds,
      spec: {
        ...ds.spec,
        template: { ...template, metadata: { ...template?.metadata, annotations: { v: '2' } } },
      },
    } as unknown as KubeObject);
    expect(await step(true)).toMatchObject({ revisionLists: 1, revisionWrites: 1 });
    expect(revisionsOf()).toHaveLength(2);
    // The step that wrote kept nothing: the next lists once, then plans on that list.
    expect(await step(true)).toMatchObject({ revisionLists: 1, revisionWrites: 0 });
    expect(await step(true)).toMatchObject({ revisionLists: 0, revisionWrites: 0 });
  });

  it('writes a revision deleted by hand again at the recount, which lists', async () => {
    const current = revisionsOf().sort(
      (a, b) => Number(b.revision ?? 0) - Number(a.revision ?? 0),
    )[0] as V1ControllerRevision;
    harness.sim.store.delete('apps/controllerrevisions', 'default', current.metadata?.name ?? '');
    // Planned on the kept list, the step believes the revision is there.
    expect(await step(true)).toMatchObject({ revisionLists: 0, revisionWrites: 0 });
    expect(await step(false)).toMatchObject({ revisionLists: 1, revisionWrites: 1 });
    expect(revisionsOf().map((r) => r.metadata?.name)).toContain(current.metadata?.name);
  });

  it('leaves a pod relabelled out of the selector to the recount, which releases it', async () => {
    const [moved] = pods() as [V1Pod];
    harness.sim.store.update('pods', {
      ...moved,
      metadata: { ...moved.metadata, labels: { ...moved.metadata?.labels, app: 'other' } },
    } as unknown as KubeObject);
    const controlled = () => pods().some((pod) => pod.metadata?.uid === moved.metadata?.uid);
    expect(await step(true)).toMatchObject({ podLists: 0 });
    expect(controlled()).toBe(true);
    await reconcileDaemonSet(harness.deps, requeued(RECOUNT_REASON), Date.now());
    expect(controlled()).toBe(false);
  });

  it('catches the table up for a step a trigger, a timer or the recount brought without a pod version', async () => {
    await step(false);
    const run = async (stepMessage: DaemonSetMessage) => {
      const [lists, watches] = [requests('list', 'pods'), requests('watch', 'pods')];
      await reconcileDaemonSet(harness.deps, stepMessage, Date.now());
      return { podLists: requests('list', 'pods') - lists, podWatches: requests('watch', 'pods') - watches };
    };
    // A safe rollout's health signal (a watch trigger without versions) and its timer: caught up.
    const signal: DaemonSetMessage = {
      ...message,
      cause: { type: 'watch', event: 'MODIFIED', kind: 'Node', resourceVersion: newest() ?? '1' },
    };
    expect(await run(signal)).toEqual({ podLists: 0, podWatches: 1 });
    expect(await run(requeued(ROLLOUT_TIMER_REASON))).toEqual({ podLists: 0, podWatches: 1 });
    // The recount catches the table up too, and lists the pods it controls that no longer match
    // its selector (one LIST per selector requirement: `app` here), to release them.
    expect(await run(requeued(RECOUNT_REASON))).toEqual({ podLists: 1, podWatches: 1 });
  });
});
