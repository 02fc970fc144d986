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
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type SqsEventSource, startSqsEventSource } from '../../lib/queue/sqs-event-source.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import type { ReconcileDeps } from '../../lib/reconcile/deps/reconcile-deps.ts';
import {
  createReconcileHandler,
  type ReconcileHandler,
} from '../../lib/reconcile/handler/reconcile-handler.ts';
import { buildReconcileDeps } from '../../lib/reconcile/setup/deps-for-config.ts';
import type { ReconcileConfig } from '../../lib/reconcile/setup/reconcile-config.ts';
import { createRouterHandler } from '../../lib/router/router-handler.ts';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { forwardPodDeletions, invokeOnce, takeRecords, waitQuiet } from './reconcile-queues.ts';

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
   * Send the pair message the router sends when a DaemonSet's pod is deleted
   * (docs/design.md, 8. The router), from the cluster's change feed (default false: tests send
   * their messages themselves).
   */
  readonly podDeletions?: boolean;
}

/** A running harness. */
export interface Harness {
  readonly sim: SimCluster;
  readonly queues: LocalQueues;
  readonly deps: ReconcileDeps;
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
  const config: ReconcileConfig = {
    managedKind,
    cluster: { type: 'kubeconfig', path: kubeconfigPath },
    apiQps: 2000,
    apiBurst: 2000,
    queues: { work: queues.urls.work, workDlq: queues.urls.workDlq, ingress: queues.urls.ingress },
    sqsEndpoint: queues.endpoint,
  };
  const logger = silentLogger();
  const deps = buildReconcileDeps({ config, logger, sqs: queues.sqs });
  // Invocations run concurrently here (never on Lambda): one publishes the other's metrics, and the
  // other's empty publish would warn on stderr.
  const metrics = new Metrics({ namespace: 'test', logger });
  const handler = createReconcileHandler({ deps, logger, metrics });
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
  deps: ReconcileDeps,
  handler: ReconcileHandler,
  options: Readonly<HarnessOptions>,
  managedKind: ManagedKind,
): SqsEventSource[] {
  const router = createRouterHandler({
    kube: deps.ports.kube,
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
