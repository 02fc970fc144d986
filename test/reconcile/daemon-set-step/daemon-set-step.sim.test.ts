import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../../lib/core/daemon-set.ts';
import { PARTITION_ANNOTATION } from '../../../lib/core/extensions.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { emptyReport } from '../../../lib/reconcile/effects/step-report.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetKey,
  daemonSetMessage,
  placementOf,
  podsOf,
  storedDaemonSet,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { drainWorkQueue, lambdaContext } from '../../support/reconcile-queues.ts';
import { pairMessagesFor, recordedEvents, revisionsOf } from '../../support/reconcile-step-deps.ts';
import { stripServerFields } from '../../support/runtime-harness.ts';

const NODES = ['n1', 'n2', 'n3'];
const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

describe('reconcileDaemonSet against the API server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
  });
  afterAll(async () => harness?.stop());

  /** Every message visible on the work queue now, taken off it. */
  const takeWork = () => drainWorkQueue(harness.queues);
  /** The Kubernetes writes the reconciler made so far, events recorded included. */
  const writes = async () => {
    await harness.deps.memory.events.flush();
    return WRITE_VERBS.reduce(
      (sum, verb) => sum + harness.sim.counters.total({ verb, userAgent: RECONCILE_USER_AGENT }),
      0,
    );
  };
  const step = (message: DaemonSetMessage) => reconcileDaemonSet(harness.deps, message, Date.now());
  const revisions = (uid: string) => revisionsOf(harness, uid);
  const eventsOf = (name: string, reason: string) => recordedEvents(harness, name, reason);

  // The first two cases follow one DaemonSet: created, then converged.
  let fresh: DaemonSetMessage;

  it('gives a new DaemonSet its revision, fans its pairs out with hints, and writes its status', async () => {
    fresh = daemonSetMessage(createDaemonSet(harness, aDaemonSet('fresh'))) as DaemonSetMessage;
    const uid = fresh.daemonSet.uid ?? '';
    const report = await step(fresh);
    expect(report).toMatchObject({ revisionWrites: 1, fannedOut: NODES.length, statusWrites: 1, created: 0 });

    const [revision, ...more] = revisions(uid);
    expect(more).toEqual([]);
    expect(revision?.revision).toBe(1);
    const hash = revision?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
    expect(storedDaemonSet(harness, 'default', 'fresh')?.status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 0,
      observedGeneration: 1,
    });

    const pairs = pairMessagesFor(await takeWork(), 'fresh');
    expect(pairs.map(({ message }) => message.node.name).sort()).toEqual(NODES);
    for (const { message } of pairs) {
      expect(message.daemonSet.uid).toBe(uid);
      expect(message.hints?.daemonSet.revisionHash).toBe(hash);
      expect(message.hints?.node?.name).toBe(message.node.name);
      expect(message.hints?.pods).toEqual([]);
    }
    // The pair steps those messages bring create the pods, of that revision.
    await harness.handler({ Records: pairs.map(({ record }) => record) }, lambdaContext());
    expect(placementOf(harness, uid)).toEqual(NODES);
    expect(podsOf(harness, uid).map((pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL])).toEqual(
      NODES.map(() => hash),
    );
  });

  it('writes nothing on a second run once the DaemonSet has converged', async () => {
    const uid = fresh.daemonSet.uid ?? '';
    await waitFor('pods ready', () => allReady(harness, uid) && podsOf(harness, uid).length === NODES.length);
    // The first run after the pods became ready counts them.
    await step(fresh);
    expect(storedDaemonSet(harness, 'default', 'fresh')?.status).toMatchObject({
      currentNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 3,
    });
    await takeWork();
    const before = await writes();
    const report = await step(fresh);
    expect(report).toMatchObject({
      created: 0,
      deleted: 0,
      adopted: 0,
      released: 0,
      revisionWrites: 0,
      statusWrites: 0,
      fannedOut: 0,
    });
    expect(await writes()).toBe(before);
    expect(pairMessagesFor(await takeWork(), 'fresh')).toEqual([]);
  });

  it('does nothing for a message naming an earlier DaemonSet of the same name', async () => {
    const before = await writes();
    const report = await step({ ...fresh, daemonSet: { ...fresh.daemonSet, uid: 'uid-of-a-deleted-one' } });
    expect(report).toEqual(emptyReport());
    expect(await writes()).toBe(before);
    expect(placementOf(harness, fresh.daemonSet.uid ?? '')).toEqual(NODES);
  });

  it('reports an invalid spec with the ReplicaFailure condition and a Warning event, touching no pod', async () => {
    const broken = daemonSetMessage(
      createDaemonSet(harness, aDaemonSet('broken', { annotations: { [PARTITION_ANNOTATION]: 'many' } })),
    ) as DaemonSetMessage;
    const uid = broken.daemonSet.uid ?? '';
    const report = await step(broken);
    expect(report).toEqual({ ...emptyReport(), statusWrites: 1 });
    const conditions = storedDaemonSet(harness, 'default', 'broken')?.status?.conditions;
    expect(conditions).toEqual([
      expect.objectContaining({
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'InvalidSpec',
        message: expect.stringContaining(PARTITION_ANNOTATION),
      }),
    ]);
    const [event] = await eventsOf('broken', 'InvalidSpec');
    expect(event).toMatchObject({ type: 'Warning', message: expect.stringContaining(PARTITION_ANNOTATION) });
    expect(revisions(uid)).toEqual([]);
    expect(podsOf(harness, uid)).toEqual([]);
    expect(pairMessagesFor(await takeWork(), 'broken')).toEqual([]);

    // Run again: the condition stands as it was, nothing written.
    expect((await step(broken)).statusWrites).toBe(0);
    expect(storedDaemonSet(harness, 'default', 'broken')?.status?.conditions).toEqual(conditions);
  });

  it('leaves a DaemonSet being deleted to garbage collection: no revision, adoption, pod or status', async () => {
    const ds = aDaemonSet('leaving');
    if (ds.metadata) ds.metadata.finalizers = ['everynode.test/hold'];
    const leaving = daemonSetMessage(createDaemonSet(harness, ds)) as DaemonSetMessage;
    const uid = leaving.daemonSet.uid ?? '';
    harness.sim.store.create(
      'pods',
      stripServerFields(aPod('leaving-orphan', { nodeName: 'n1', labels: { app: 'leaving' } })),
    );
    harness.sim.store.delete(daemonSetKey(harness.managedKind), 'default', 'leaving');
    expect(storedDaemonSet(harness, 'default', 'leaving')?.metadata?.deletionTimestamp).toBeDefined();

    const status = storedDaemonSet(harness, 'default', 'leaving')?.status;
    const before = await writes();
    expect(await step(leaving)).toEqual(emptyReport());
    expect(await writes()).toBe(before);
    expect(revisions(uid)).toEqual([]);
    expect(storedDaemonSet(harness, 'default', 'leaving')?.status).toEqual(status);
    const orphan = harness.sim.store.get('pods', 'default', 'leaving-orphan');
    expect(orphan?.metadata.ownerReferences ?? []).toEqual([]);
    expect(pairMessagesFor(await takeWork(), 'leaving')).toEqual([]);
    // The process forgets it: no later step plans from a copy read before.
    expect(harness.deps.memory.objects.isGone(uid)).toBe(true);
  });
});
