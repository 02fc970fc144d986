/**
 * The queue side of the reconcile end-to-end harness: invoking the handler with records taken off
 * the work queue, the router's pod-deletion rule, and waiting for the queues to be quiet.
 */
import { DeleteMessageBatchCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { V1Pod } from '@kubernetes/client-node';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import type { LocalQueues } from '../../lib/queue/local-queues.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { toSqsRecord } from '../../lib/queue/sqs-event-source.ts';
import type { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import type { ReconcileHandler } from '../../lib/reconcile/handler/reconcile-handler.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';

/** The router's rule for a deleted pod of a DaemonSet: a pair message for its node. */
export function forwardPodDeletions(sim: SimCluster, work: ReturnType<typeof sqsWorkSender>): () => void {
  return sim.store.subscribe((event) => {
    if (event.key !== 'pods' || event.type !== 'DELETED') return;
    const pod = event.object as unknown as V1Pod;
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller && ref.kind === 'DaemonSet');
    const node = targetNodeName(pod);
    if (owner === undefined || node === undefined) return;
    const message: WorkMessage = {
      v: 1,
      kind: 'pair',
      cause: {
        type: 'watch',
        event: 'DELETED',
        kind: 'Pod',
        resourceVersion: pod.metadata?.resourceVersion ?? '1',
      },
      daemonSet: { namespace: pod.metadata?.namespace ?? 'default', name: owner.name, uid: owner.uid },
      node: { name: node },
    };
    void work.send([{ message }]).catch(() => undefined);
  });
}

/** Receives one batch, invokes the handler with it, deletes what it did not report failed. */
export async function invokeOnce(
  queues: LocalQueues,
  handler: ReconcileHandler,
  waitSeconds: number,
): Promise<{ event: SQSEvent; response: SQSBatchResponse }> {
  const received = await queues.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queues.urls.work,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = received.Messages ?? [];
  const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, { queueUrl: queues.urls.work })) };
  const response = await handler(event, lambdaContext());
  const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
  const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
  if (done.length > 0) {
    await queues.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queues.urls.work,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return { event, response };
}

/** Takes `count` messages off the work queue one receive at a time, as one Lambda event. */
export async function takeRecords(queues: LocalQueues, count: number): Promise<SQSEvent> {
  const records: SQSEvent['Records'] = [];
  while (records.length < count) {
    const received = await queues.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queues.urls.work,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 2,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const message = received.Messages?.[0];
    if (message === undefined)
      throw new Error(`only ${records.length} of ${count} messages on the work queue`);
    records.push(toSqsRecord(message, { queueUrl: queues.urls.work }));
    await queues.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queues.urls.work, ReceiptHandle: message.ReceiptHandle ?? '' }),
    );
  }
  return { Records: records };
}

/** A Lambda context for direct invocations. */
export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'reconcile-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:reconcile-test',
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: '/aws/lambda/reconcile-test',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function depth(queues: LocalQueues, url: string): Promise<number> {
  const { now, delayed } = await queueDepth(queues.sqs, url);
  return now + delayed;
}

/** Resolves once the work and ingress queues hold nothing and no invocation runs, three polls in a row. */
export async function waitQuiet(
  queues: LocalQueues,
  inFlight: { count: number },
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let calm = 0;
  while (calm < 3) {
    if (Date.now() > deadline) throw new Error(`queues not quiet after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pending = (await depth(queues, queues.urls.work)) + (await depth(queues, queues.urls.ingress));
    calm = pending === 0 && inFlight.count === 0 ? calm + 1 : 0;
  }
}

/**
 * Every message visible on the work queue now, taken off it (fauxqs gives one per FIFO group per
 * receive, so it receives until the queue answers with none).
 */
export async function drainWorkQueue(queues: LocalQueues): Promise<SQSRecord[]> {
  const records: SQSRecord[] = [];
  for (;;) {
    const received = await queues.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queues.urls.work,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return records;
    records.push(...messages.map((m) => toSqsRecord(m, { queueUrl: queues.urls.work })));
    await queues.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queues.urls.work,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
}
