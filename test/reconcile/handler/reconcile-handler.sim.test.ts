import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatWorkMessage, type WorkMessage } from '../../../lib/messages/work-message.ts';
import { sendMessages } from '../../../lib/queue/send-messages.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { recordsByGroup } from '../../../lib/reconcile/handler/reconcile-handler.ts';
import { MAX_FAILURE_REQUEUES } from '../../../lib/reconcile/handler/work-record.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { ErrorRate } from '../../../lib/sim/faults.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  pairMessage,
  placementOf,
  podsOf,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { lambdaContext } from '../../support/reconcile-queues.ts';

const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];

async function deadLetters(harness: Harness): Promise<{ body: string; reason: string }[]> {
  const answer = await harness.queues.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: harness.queues.urls.workDlq,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = answer.Messages ?? [];
  if (messages.length > 0) {
    await harness.queues.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: harness.queues.urls.workDlq,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return messages.map((m) => ({
    body: m.Body ?? '',
    reason: m.MessageAttributes?.reason?.StringValue ?? '',
  }));
}

describe('the reconcile handler', () => {
  let harness: Harness;
  let ds: ReturnType<typeof createDaemonSet>;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
    ds = createDaemonSet(harness, aDaemonSet('agent'));
  });
  afterAll(async () => harness?.stop());

  it.each([
    { name: 'a body that is not JSON', body: 'not json', reason: /not JSON/ },
    {
      name: 'an unknown version',
      body: JSON.stringify({ v: 9, kind: 'pair' }),
      reason: /unknown message version 9/,
    },
    {
      name: 'an unknown kind',
      body: JSON.stringify({ v: 1, kind: 'pod' }),
      reason: /unknown message kind "pod"/,
    },
    {
      name: 'a message for the other managed kind',
      body: formatWorkMessage({
        ...(daemonSetMessage(aDaemonSet('x')) as WorkMessage),
        managedKind: 'everynode.dev/v1',
      }),
      reason: /manages apps\/v1/,
    },
  ])(
    'sends $name to the DLQ at once, with its reason, and reports it processed',
    async ({ body, reason }) => {
      await sendMessages(harness.queues.sqs, harness.queues.urls.work, [
        { body, groupId: 'poison', deduplicationId: `poison-${Date.now()}-${Math.random()}` },
      ]);
      const { response } = await harness.invokeOnce();
      expect(response.batchItemFailures).toEqual([]);
      const letters = await deadLetters(harness);
      expect(letters).toHaveLength(1);
      expect(letters[0]?.body).toBe(body);
      expect(letters[0]?.reason).toMatch(reason);
    },
  );

  it('reconciles duplicate keys of one batch once', async () => {
    const count = (verb: string, resource: string) =>
      harness.sim.counters.total({ verb, resource, userAgent: RECONCILE_USER_AGENT });
    const before = { list: count('list', 'pods'), create: count('create', 'pods') };
    const at = Date.now();
    await harness.send(...[0, 1, 2].map((i) => pairMessage(ds, 'n3', new Date(at + i))));
    const event = await harness.takeRecords(3);
    const response = await harness.handler(event, lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    // One read of the pair's pods and one create: the three records were one reconcile.
    expect(count('list', 'pods') - before.list).toBe(1);
    expect(count('create', 'pods') - before.create).toBe(1);
    expect(placementOf(harness, ds.metadata?.uid ?? '')).toEqual(['n3']);
  });

  /**
   * The pair of `node` reconciled while every `verb` request fails with `fault`: the handler must
   * report no failure and make no pod; resolves with the next invocation, after the fault is gone.
   */
  async function failOnceThenRetry(verb: string, fault: Readonly<ErrorRate>, node: string) {
    harness.sim.faults.setErrorRate(verb, fault);
    await harness.send(pairMessage(ds, node));
    const first = await harness.invokeOnce();
    harness.sim.faults.setErrorRate(verb, { status: fault.status, rate: 0 });
    expect(first.response.batchItemFailures).toEqual([]);
    expect(placementOf(harness, ds.metadata?.uid ?? '')).not.toContain(node);
    return harness.invokeOnce(5);
  }

  it('turns a 429 into a delayed requeue instead of a failed receive', async () => {
    // The router forwards the requeue from the ingress queue once its Retry-After has passed.
    const second = await failOnceThenRetry('get', { status: 429, rate: 1, retryAfterSeconds: 1 }, 'n4');
    expect(second.event.Records).toHaveLength(1);
    expect(JSON.parse(second.event.Records[0]?.body ?? '{}').cause).toMatchObject({ type: 'requeue' });
    expect(second.event.Records[0]?.attributes.ApproximateReceiveCount).toBe('1');
    expect(placementOf(harness, ds.metadata?.uid ?? '')).toContain('n4');
  });

  it('keeps the hints of a throttled pair, so its retry is the create alone', async () => {
    const count = (verb: string, resource?: string) =>
      harness.sim.counters.total({
        verb,
        userAgent: RECONCILE_USER_AGENT,
        ...(resource ? { resource } : {}),
      });
    const stored = harness.sim.store.get('apps/daemonsets', 'default', 'agent');
    const node = harness.sim.store.get('nodes', '', 'n2');
    const hinted: WorkMessage = {
      ...(pairMessage(ds, 'n2') as Extract<WorkMessage, { kind: 'pair' }>),
      hints: {
        observedAt: new Date().toISOString(),
        daemonSet: {
          resourceVersion: stored?.metadata.resourceVersion ?? '',
          generation: stored?.metadata.generation ?? 1,
          revisionHash:
            podsOf(harness, ds.metadata?.uid ?? '')[0]?.metadata?.labels?.['controller-revision-hash'] ?? '',
        },
        node: {
          name: 'n2',
          resourceVersion: node?.metadata.resourceVersion ?? '',
          labels: { 'kubernetes.io/hostname': 'n2' },
        },
        pods: [],
      },
    };
    harness.sim.faults.setErrorRate('create', { status: 429, rate: 1, retryAfterSeconds: 1 });
    await harness.send(hinted);
    await harness.invokeOnce();
    harness.sim.faults.setErrorRate('create', { status: 429, rate: 0 });
    expect(placementOf(harness, ds.metadata?.uid ?? '')).not.toContain('n2');
    const before = { get: count('get'), list: count('list'), create: count('create', 'pods') };
    const second = await harness.invokeOnce(5);
    const retried = JSON.parse(second.event.Records[0]?.body ?? '{}');
    expect(retried.cause).toMatchObject({ type: 'requeue', reason: 'API server answered 429' });
    expect(retried.hints).toEqual((hinted as { hints: unknown }).hints);
    expect(placementOf(harness, ds.metadata?.uid ?? '')).toContain('n2');
    expect({ get: count('get') - before.get, list: count('list') - before.list }).toEqual({
      get: 0,
      list: 0,
    });
    expect(count('create', 'pods') - before.create).toBe(1);
  });

  it('sends a retryable failure back with backoff instead of holding its group for the visibility timeout', async () => {
    // Back through the router after the first backoff (1 s), as a new receive.
    const second = await failOnceThenRetry('create', { status: 500, rate: 1 }, 'n5');
    expect(JSON.parse(second.event.Records[0]?.body ?? '{}').cause).toMatchObject({
      type: 'requeue',
      attempt: 0,
    });
    expect(second.event.Records[0]?.attributes.ApproximateReceiveCount).toBe('1');
    expect(placementOf(harness, ds.metadata?.uid ?? '')).toContain('n5');
    expect(await deadLetters(harness)).toEqual([]);
  });

  it('reports a failure for redelivery when its requeue cannot be sent, skipping the rest of its group only', async () => {
    harness.sim.faults.setErrorRate('create', { status: 500, rate: 1 });
    // The ingress queue is down too: the outage's requeue fails, so SQS must redeliver the record.
    const ports = harness.deps.ports as { requeue: ReconcileDeps['ports']['requeue'] };
    const requeue = ports.requeue;
    ports.requeue = {
      requeue: async () => {
        throw new Error('ingress queue unavailable');
      },
    };
    const at = Date.now();
    const spent = (message: WorkMessage): WorkMessage => ({
      ...message,
      cause: {
        type: 'requeue',
        reason: 'failed: 500',
        attempt: MAX_FAILURE_REQUEUES + 2,
        failures: MAX_FAILURE_REQUEUES,
        requestedAt: new Date(at).toISOString(),
      },
    });
    await harness.send(
      spent(pairMessage(ds, 'n1', new Date(at))),
      daemonSetMessage(aDaemonSet('gone')),
      pairMessage(ds, 'n1', new Date(at + 1)),
    );
    const event = await harness.takeRecords(3);
    const response = await harness.handler(event, lambdaContext());
    ports.requeue = requeue;
    harness.sim.faults.setErrorRate('create', { status: 500, rate: 0 });
    const ids = event.Records.map((r) => ({ id: r.messageId, group: r.attributes.MessageGroupId }));
    const failed = response.batchItemFailures.map((f) => f.itemIdentifier);
    expect(ids.filter((r) => r.group?.startsWith('pair:'))).toHaveLength(2);
    expect(failed.sort()).toEqual(
      ids
        .filter((r) => r.group?.startsWith('pair:'))
        .map((r) => r.id)
        .sort(),
    );
    expect(await deadLetters(harness)).toEqual([]);
  });

  it('re-reads a pair whose hinted pod changed (Conflict) instead of acting on stale hints', async () => {
    await harness.send(pairMessage(ds, 'n1'));
    await harness.invokeOnce();
    await waitFor('pod on n1 running', () =>
      podsOf(harness, ds.metadata?.uid ?? '').some(
        (pod) => pod.spec?.nodeName === 'n1' && pod.status?.phase === 'Running',
      ),
    );
    const pod = podsOf(harness, ds.metadata?.uid ?? '').find((p) => p.spec?.nodeName === 'n1');
    const stored = harness.sim.store.get('apps/daemonsets', 'default', 'agent');
    const hint = {
      name: pod?.metadata?.name ?? '',
      uid: pod?.metadata?.uid ?? '',
      resourceVersion: '1',
      labels: pod?.metadata?.labels ?? {},
      controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata?.uid ?? '' },
      nodeName: 'n1',
      phase: 'Failed',
      ready: false,
    };
    const message: WorkMessage = {
      ...(pairMessage(ds, 'n1') as Extract<WorkMessage, { kind: 'pair' }>),
      hints: {
        observedAt: new Date().toISOString(),
        daemonSet: {
          resourceVersion: stored?.metadata.resourceVersion ?? '',
          generation: stored?.metadata.generation ?? 1,
          revisionHash: pod?.metadata?.labels?.['controller-revision-hash'] ?? '',
        },
        node: { name: 'n1', resourceVersion: '1', labels: { 'kubernetes.io/hostname': 'n1' } },
        pods: [hint],
      },
    };
    await harness.send(message);
    const { response } = await harness.invokeOnce();
    expect(response.batchItemFailures).toEqual([]);
    expect(
      podsOf(harness, ds.metadata?.uid ?? '').find((p) => p.spec?.nodeName === 'n1')?.metadata?.uid,
    ).toBe(pod?.metadata?.uid);
  });
});

describe('recordsByGroup', () => {
  it('splits a batch by message group, keeping each group in order', () => {
    const inGroup = (messageId: string, group: string) =>
      ({ messageId, attributes: { MessageGroupId: group } }) as unknown as SQSRecord;
    const groups = recordsByGroup([
      inGroup('1', 'a'),
      inGroup('2', 'b'),
      inGroup('3', 'a'),
      inGroup('4', 'c'),
    ]);
    expect(groups.map((g) => g.map((r) => r.messageId))).toEqual([['1', '3'], ['2'], ['4']]);
  });
});
