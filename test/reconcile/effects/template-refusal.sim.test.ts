import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidError } from '../../../lib/kube/errors/kube-api-errors.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { isTemplateRefusal } from '../../../lib/reconcile/effects/template-refusal.ts';
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
import { pairMessagesFor, recordedEvents } from '../../support/reconcile-step-deps.ts';

const NODES = ['n1', 'n2', 'n3'];

/**
 * A pod template everynode's own validation passes but kube-apiserver refuses on every pod (an
 * unsupported dnsPolicy, which the loosely typed everynode.dev/v1 CRD stores): the first refused
 * create stops the revision's fan-out and says so on the DaemonSet, instead of one dead letter per
 * node; the fixed template resumes it.
 */
describe('a pod template the API server refuses for every node', () => {
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
  const failedCreates = (name: string) => recordedEvents(harness, name, 'FailedCreate');
  const deadLetters = async () => {
    const { Attributes } = await harness.queues.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: harness.queues.urls.workDlq,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages ?? 'NaN');
  };
  const refusals = () =>
    (storedDaemonSet(harness, 'default', 'refused')?.status?.conditions ?? []).filter(
      (c) => c.type === 'ReplicaFailure',
    );

  it('records the refusal once, dead-letters nothing, skips the revision, and resumes on a fix', async () => {
    const ds = aDaemonSet('refused');
    const spec = ds.spec?.template.spec;
    if (spec) spec.dnsPolicy = 'Bogus';
    const message = daemonSetMessage(createDaemonSet(harness, ds)) as DaemonSetMessage;
    const uid = message.daemonSet.uid ?? '';

    expect(await step(message)).toMatchObject({ revisionWrites: 1, fannedOut: NODES.length });
    const pairs = pairMessagesFor(await drainWorkQueue(harness.queues), 'refused');
    expect(pairs).toHaveLength(NODES.length);
    const response = await harness.handler({ Records: pairs.map(({ record }) => record) }, lambdaContext());
    expect(response?.batchItemFailures ?? []).toEqual([]);

    expect(await deadLetters()).toBe(0);
    expect(podsOf(harness, uid)).toEqual([]);
    expect(refusals()).toEqual([
      expect.objectContaining({
        status: 'True',
        reason: 'FailedCreate',
        message: expect.stringContaining('spec.dnsPolicy: Unsupported value: "Bogus"'),
      }),
    ]);
    const events = await failedCreates('refused');
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        message: expect.stringMatching(/^Error creating: .*spec\.dnsPolicy: Unsupported value: "Bogus"/),
      }),
    ]);

    // The next step of the same revision sends no pair and keeps the condition.
    expect(await step(message)).toMatchObject({ fannedOut: 0, created: 0 });
    expect(pairMessagesFor(await drainWorkQueue(harness.queues), 'refused')).toEqual([]);
    expect(refusals()).toHaveLength(1);

    updateDaemonSet(harness, 'default', 'refused', (stored) => {
      const template = stored.spec?.template.spec;
      if (template) template.dnsPolicy = 'ClusterFirst';
    });
    expect(await step(message)).toMatchObject({ revisionWrites: 1, fannedOut: NODES.length });
    expect(refusals()).toEqual([]);
    const fixed = pairMessagesFor(await drainWorkQueue(harness.queues), 'refused');
    await harness.handler({ Records: fixed.map(({ record }) => record) }, lambdaContext());
    expect(placementOf(harness, uid)).toEqual(NODES);
    expect(await deadLetters()).toBe(0);
    expect(await failedCreates('refused')).toHaveLength(1);
  });
});

describe('isTemplateRefusal', () => {
  const invalid = (...fields: (string | undefined)[]) =>
    new InvalidError('refused', {
      status: 422,
      reason: 'Invalid',
      causes: fields.map((field) => ({ field })),
    });

  it('takes a 422 whose causes all concern the template as template-wide', () => {
    expect(isTemplateRefusal(invalid('spec.dnsPolicy', 'spec.containers[0].image'))).toBe(true);
  });

  it('leaves a 422 naming a node-specific field, or no field, to its pair', () => {
    expect(isTemplateRefusal(invalid('spec.dnsPolicy', 'spec.nodeName'))).toBe(false);
    expect(
      isTemplateRefusal(invalid('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution')),
    ).toBe(false);
    expect(isTemplateRefusal(invalid('metadata.name'))).toBe(false);
    expect(isTemplateRefusal(invalid())).toBe(false);
    expect(isTemplateRefusal(new Error('spec.dnsPolicy'))).toBe(false);
  });
});
