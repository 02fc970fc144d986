/**
 * The reconcile function end to end, for tests: a simulated cluster reached through the real
 * client (the KubePort adapter over a kubeconfig), the pipeline's queues on fauxqs, the reconcile
 * handler driven by the local SQS event source on the work queue, and the router on the ingress
 * queue (it forwards the handler's delayed requeues). Tests send work messages as the router
 * would for the cluster changes they make, and assert the cluster's state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { V1Pod } from '@kubernetes/client-node';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { buildPipelineDeps } from '../../lib/pipeline/build-pipeline-deps.ts';
import type { FunctionConfig } from '../../lib/pipeline/function-config.ts';
import type { PipelineDeps } from '../../lib/pipeline/pipeline-deps.ts';
import { createReconcileHandler, type ReconcileHandler } from '../../lib/pipeline/reconcile-handler.ts';
import { createRouterHandler } from '../../lib/pipeline/router-handler.ts';
import { sqsWorkSender } from '../../lib/pipeline/sqs-senders.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type SqsEventSource, startSqsEventSource, toSqsRecord } from '../../lib/queue/sqs-event-source.ts';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** Options of {@link startReconcileHarness}. */
export interface HarnessOptions {
  readonly managedKind?: ManagedKind;
  readonly nodes?: SimClusterOptions['nodes'];
  readonly timing?: SimClusterOptions['timing'];
  /** Concurrent handler invocations on the work queue (default 4). */
  readonly concurrency?: number;
  /** Records per invocation (default 10). */
  readonly batchSize?: number;
  readonly maxReceiveCount?: number;
  /** Poll the work queue with the event source (default true); false leaves it to `invokeOnce`. */
  readonly pollWork?: boolean;
  /**
   * Send the pair message the router sends when a DaemonSet's pod is deleted (pipeline design 10),
   * from the cluster's change feed (default false: tests send their messages themselves).
   */
  readonly podDeletions?: boolean;
}

/** A running harness. */
export interface Harness {
  readonly sim: SimCluster;
  readonly queues: LocalQueues;
  readonly deps: PipelineDeps;
  readonly handler: ReconcileHandler;
  readonly managedKind: ManagedKind;
  readonly kubeconfigPath: string;
  /** Sends work messages to the work queue with their usual group and de-duplication ids. */
  send(...messages: WorkMessage[]): Promise<void>;
  /**
   * Receives one batch from the work queue (waiting up to `waitSeconds` for the first message),
   * invokes the handler with it as the Lambda event source would, deletes the records it did not
   * report as failed, and returns the event and the response.
   */
  invokeOnce(waitSeconds?: number): Promise<{ event: SQSEvent; response: SQSBatchResponse }>;
  /**
   * Takes `count` messages off the work queue one receive at a time (fauxqs, unlike SQS, returns one
   * message per FIFO group per receive) and returns them as the records of one Lambda event.
   */
  takeRecords(count: number): Promise<SQSEvent>;
  /** Resolves once no message is waiting, delayed or in flight on the work and ingress queues. */
  quiet(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const silentLogger = () => new Logger({ serviceName: 'reconcile-test', logLevel: 'SILENT' });

/** Starts the simulated cluster, the queues, the reconcile handler and the router. */
export async function startReconcileHarness(options: Readonly<HarnessOptions> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'everynode-reconcile-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const managedKind = options.managedKind ?? 'apps/v1';
  const sim = await startSimCluster({
    kubeconfigPath,
    timing: { timeScale: 0.01, ...options.timing },
    ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
  });
  const queues = await startLocalQueues({
    visibilityTimeoutSeconds: 2,
    maxReceiveCount: options.maxReceiveCount ?? 5,
  });
  const config: FunctionConfig = {
    managedKind,
    cluster: { type: 'kubeconfig', path: kubeconfigPath },
    apiQps: 2000,
    apiBurst: 2000,
    queues: { work: queues.urls.work, workDlq: queues.urls.workDlq, ingress: queues.urls.ingress },
    sqsEndpoint: queues.endpoint,
  };
  const logger = silentLogger();
  const deps = buildPipelineDeps({ config, logger, sqs: queues.sqs });
  const handler = createReconcileHandler({ deps, logger, metrics: new Metrics({ namespace: 'test' }) });
  const inFlight = { count: 0 };
  const counted: ReconcileHandler = async (event, context) => {
    inFlight.count++;
    try {
      return await handler(event, context);
    } finally {
      inFlight.count--;
    }
  };
  const sources = startSources(queues, deps, counted, options, managedKind);
  const work = sqsWorkSender(queues.sqs, queues.urls.work);
  const unsubscribe = options.podDeletions ? forwardPodDeletions(sim, work) : () => undefined;
  return {
    sim,
    queues,
    deps,
    handler,
    managedKind,
    kubeconfigPath,
    send: (...messages) => work.send(messages.map((message) => ({ message }))),
    invokeOnce: (waitSeconds = 2) => invokeOnce(queues, counted, waitSeconds),
    takeRecords: (count) => takeRecords(queues, count),
    quiet: (timeoutMs = 45_000) => waitQuiet(queues, inFlight, timeoutMs),
    stop: async () => {
      unsubscribe();
      await Promise.all(sources.map((source) => source.stop()));
      await queues.stop();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function startSources(
  queues: LocalQueues,
  deps: PipelineDeps,
  handler: ReconcileHandler,
  options: Readonly<HarnessOptions>,
  managedKind: ManagedKind,
): SqsEventSource[] {
  const router = createRouterHandler({
    kube: deps.kube,
    managedKind,
    work: sqsWorkSender(queues.sqs, queues.urls.work),
    ingress: (messages) => sendMessages(queues.sqs, queues.urls.ingress, messages),
    logger: silentLogger(),
    counters: { count: () => undefined },
    clock: () => new Date(),
  });
  const ingress = startSqsEventSource({ sqs: queues.sqs, queueUrl: queues.urls.ingress, handler: router });
  if (options.pollWork === false) return [ingress];
  const work = startSqsEventSource({
    sqs: queues.sqs,
    queueUrl: queues.urls.work,
    handler,
    concurrency: options.concurrency ?? 4,
    batchSize: options.batchSize ?? 10,
  });
  return [work, ingress];
}

/** The router's rule for a deleted pod of a DaemonSet: a pair message for its node. */
function forwardPodDeletions(sim: SimCluster, work: ReturnType<typeof sqsWorkSender>): () => void {
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

async function invokeOnce(
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

async function takeRecords(queues: LocalQueues, count: number): Promise<SQSEvent> {
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
  const answer = await queues.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(answer.Attributes ?? {}).reduce((sum, value) => sum + Number(value), 0);
}

async function waitQuiet(queues: LocalQueues, inFlight: { count: number }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let calm = 0;
  while (calm < 3) {
    if (Date.now() > deadline) throw new Error(`queues not quiet after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pending = (await depth(queues, queues.urls.work)) + (await depth(queues, queues.urls.ingress));
    calm = pending === 0 && inFlight.count === 0 ? calm + 1 : 0;
  }
}
