import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { emptyReport } from '../../../lib/reconcile/effects/step-report.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  placementOf,
  podsOf,
  storedDaemonSet,
  updateDaemonSet,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { drainWorkQueue, lambdaContext } from '../../support/reconcile-queues.ts';
import { pairMessagesFor, recordedEvents, revisionsOf } from '../../support/reconcile-step-deps.ts';

const NODES = ['n1', 'n2'];

/**
 * The everynode.dev/v1 CRD keeps the pod template loosely, so the API server stores a template
 * kube-apiserver would refuse for every pod; everynode must report it as an invalid spec (and send
 * no pair anywhere, so nothing reaches the dead-letter queue), then resume once it is fixed.
 */
describe('reconcileDaemonSet with a pod template every pod create would refuse', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: NODES.map((name) => aNode(name)),
      pollWork: false,
      managedKind: 'everynode.dev/v1',
    });
  });
  afterAll(async () => harness?.stop());

  const step = (message: DaemonSetMessage) => reconcileDaemonSet(harness.deps, message, Date.now());
  const revisions = (uid: string) => revisionsOf(harness, uid);
  const eventsOf = (name: string) => recordedEvents(harness, name, 'InvalidSpec');

  /** Creates `ds`, runs one step and checks it was reported invalid with `expected` in the message. */
  async function expectInvalid(ds: ReturnType<typeof aDaemonSet>, expected: string) {
    const name = ds.metadata?.name ?? '';
    const message = daemonSetMessage(createDaemonSet(harness, ds)) as DaemonSetMessage;
    const uid = message.daemonSet.uid ?? '';
    expect(await step(message)).toEqual({ ...emptyReport(), statusWrites: 1 });
    expect(storedDaemonSet(harness, 'default', name)?.status?.conditions).toEqual([
      expect.objectContaining({
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'InvalidSpec',
        message: expect.stringContaining(expected),
      }),
    ]);
    const events = await eventsOf(name);
    expect(events).toEqual([
      expect.objectContaining({ type: 'Warning', message: expect.stringContaining(expected) }),
    ]);
    expect(revisions(uid)).toEqual([]);
    expect(podsOf(harness, uid)).toEqual([]);
    expect(pairMessagesFor(await drainWorkQueue(harness.queues), name)).toEqual([]);
    return message;
  }

  it('reports an Exists toleration with a value, then resumes on the step after the fix', async () => {
    const ds = aDaemonSet('tolerant', { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] });
    const message = await expectInvalid(
      ds,
      "spec.template.spec.tolerations[0].operator: value must be empty when `operator` is 'Exists'",
    );
    const uid = message.daemonSet.uid ?? '';

    updateDaemonSet(harness, 'default', 'tolerant', (stored) => {
      const toleration = stored.spec?.template.spec?.tolerations?.[0];
      if (toleration) delete toleration.value;
    });
    const report = await step(message);
    expect(report).toMatchObject({ revisionWrites: 1, fannedOut: NODES.length });
    const status = storedDaemonSet(harness, 'default', 'tolerant')?.status;
    expect((status?.conditions ?? []).filter((c) => c.type === 'ReplicaFailure')).toEqual([]);
    const pairs = pairMessagesFor(await drainWorkQueue(harness.queues), 'tolerant');
    expect(pairs.map(({ message: m }) => m.node.name).sort()).toEqual(NODES);
    await harness.handler({ Records: pairs.map(({ record }) => record) }, lambdaContext());
    expect(placementOf(harness, uid)).toEqual(NODES);
    expect(revisions(uid)).toHaveLength(1);
  });

  it('reports template annotations over 256 KiB', async () => {
    const ds = aDaemonSet('heavy');
    const template = ds.spec?.template;
    if (template) template.metadata = { ...template.metadata, annotations: { big: 'x'.repeat(300 * 1024) } };
    await expectInvalid(ds, 'spec.template.metadata.annotations: must have at most 262144 bytes');
  });
});
