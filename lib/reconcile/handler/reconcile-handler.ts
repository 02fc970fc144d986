/**
 * The reconcile function's Lambda handler, built over given deps so the same handler runs on AWS
 * (functions/reconcile) and locally: middy 6 with Powertools Logger (Lambda context in every log
 * line), Metrics (EMF) and Batch (SQS FIFO partial batch responses, skipping the rest of a message
 * group after a failure so FIFO order holds).
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processRequestCounter, type RequestCounter } from '../../kube/requests/request-counter.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { inPlaceMetrics } from '../effects/in-place-update-metrics.ts';
import { placementMetrics } from '../effects/placement-metrics.ts';
import { nonZero, type ReportKey } from '../effects/step-report.ts';
import {
  type BatchPlan,
  parseRecord,
  planBatch,
  type RecordOutcome,
  reconcileRecord,
} from './work-record.ts';

/** What the handler is built from; all of it lives as long as the process (one Lambda container). */
export interface ReconcileHandlerTools {
  readonly deps: ReconcileDeps;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Where the deps' kube port counts its API requests (default the process counter); each batch's
   * own requests are measured through it.
   */
  readonly requestCounter?: RequestCounter;
}

/** The handler: an SQS batch in, the records to redeliver out. */
export type ReconcileHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Metric names of the report counts (actions by kind, conflicts, requeues). */
const reportMetrics: Partial<Record<ReportKey, string>> = {
  created: 'PodsCreated',
  alreadyExisted: 'PodCreatesAlreadyDone',
  namespaceGone: 'PodCreatesNamespaceGone',
  deleted: 'PodsDeleted',
  alreadyGone: 'PodDeletesAlreadyDone',
  adopted: 'PodsAdopted',
  released: 'PodsReleased',
  revisionWrites: 'RevisionWrites',
  statusWrites: 'StatusWrites',
  fannedOut: 'PairsFannedOut',
  requeues: 'Requeues',
  conflicts: 'Conflicts',
  hinted: 'HintedPairs',
  gatesLifted: 'NodeReadinessGatesLifted',
  gatesRestored: 'NodeReadinessGatesRestored',
  gateTimeouts: 'NodeReadinessGateTimeouts',
  rolloutSteps: 'RolloutStepsComplete',
  rolloutDomains: 'RolloutDomainsComplete',
  rolloutHalts: 'RolloutHalts',
  rolloutReverts: 'RolloutReverts',
  rolloutRetries: 'RolloutRetries',
  ...inPlaceMetrics,
  ...placementMetrics,
};

function recordMetrics(metrics: Metrics, outcome: RecordOutcome): void {
  switch (outcome.type) {
    case 'reconciled':
      metrics.addMetric('ReconcileLatency', MetricUnit.Milliseconds, outcome.millis);
      metrics.addMetric(`Reconciled_${outcome.kind}`, MetricUnit.Count, 1);
      for (const [key, value] of Object.entries(nonZero(outcome.report))) {
        const name = reportMetrics[key as ReportKey];
        if (name) metrics.addMetric(name, MetricUnit.Count, value);
      }
      return;
    case 'duplicate':
      metrics.addMetric('DuplicatesSkipped', MetricUnit.Count, 1);
      return;
    case 'namespace-gone':
      metrics.addMetric('NamespaceGone', MetricUnit.Count, 1);
      return;
    case 'dead-lettered':
      metrics.addMetric('DeadLettered', MetricUnit.Count, 1);
      return;
    case 'throttled':
      metrics.addMetric('Throttled', MetricUnit.Count, 1);
      metrics.addMetric('Requeues', MetricUnit.Count, 1);
      return;
    case 'retried':
      metrics.addMetric('RetriedAfterFailure', MetricUnit.Count, 1);
      if (outcome.transient) metrics.addMetric('RetriedTransient', MetricUnit.Count, 1);
      metrics.addMetric('Requeues', MetricUnit.Count, 1);
      return;
  }
}

/** The records of a batch by FIFO message group, each group in batch order. */
export function recordsByGroup(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const group = record.attributes.MessageGroupId ?? '';
    const members = groups.get(group);
    if (members) members.push(record);
    else groups.set(group, [record]);
  }
  return [...groups.values()];
}

/**
 * The middy handler over `tools`. Per batch: records of the same work key run once (the first);
 * the message groups run concurrently, each group's records in FIFO order
 * (`SqsFifoPartialProcessorAsync`, `skipGroupOnError`), and
 * the failures come back as `batchItemFailures` (never a thrown error, so the successes are kept).
 * Metrics: records, latency, actions by kind, conflicts, requeues, DLQ and throttling counts, and
 * the API requests the batch made.
 */
export function createReconcileHandler(tools: Readonly<ReconcileHandlerTools>): ReconcileHandler {
  const { logger, metrics } = tools;
  const counter = tools.requestCounter ?? processRequestCounter;
  const handle = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // Measured, not a difference of the process's total: other invocations of the local pipeline,
    // and its relay and router, make requests in this process meanwhile.
    const { value: response, requests } = await counter.measure(() => handleBatch(tools, event, context));
    metrics.addMetric('Records', MetricUnit.Count, event.Records.length);
    metrics.addMetric('ApiRequests', MetricUnit.Count, requests);
    return response;
  };
  return middy(handle).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}

async function handleBatch(
  tools: Readonly<ReconcileHandlerTools>,
  event: SQSEvent,
  context: Context,
): Promise<SQSBatchResponse> {
  const recordHandler = recordHandlerFor(tools, planBatch(event.Records));
  // FIFO orders messages within a group only: the groups of a batch run concurrently, each in
  // order through its own processor, so a node's message never waits behind ten DaemonSet steps
  // that came in the same batch. One processor per group: its state is per batch.
  const responses = await Promise.all(
    recordsByGroup(event.Records).map((records) =>
      processPartialResponse({ Records: records }, recordHandler, new SqsFifoPartialProcessorAsync(), {
        context,
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      }),
    ),
  );
  const response: SQSBatchResponse = { batchItemFailures: responses.flatMap((r) => r.batchItemFailures) };
  // Events are written in the background; a Lambda container is frozen once the handler returns.
  await tools.deps.memory.events.flush();
  if (response.batchItemFailures.length > 0) {
    tools.logger.warn('records left for redelivery', {
      failed: response.batchItemFailures.map((f) => f.itemIdentifier),
    });
  }
  return response;
}

/** Reconciles one record of the batch planned as `plan`, logging and counting its outcome. */
function recordHandlerFor(
  { deps, logger, metrics }: Readonly<ReconcileHandlerTools>,
  plan: Readonly<BatchPlan>,
): (record: SQSRecord) => Promise<RecordOutcome['type']> {
  return async (record) => {
    // The processor hands back the batch's own records, each parsed by the plan already;
    // parsing here only covers a record the plan never saw.
    const parsed = plan.records.get(record.messageId) ?? parseRecord(record);
    const outcome = await reconcileRecord(deps, parsed, plan).catch((error: unknown) => {
      // Its requeue (or dead letter) could not be sent: SQS redelivers the record (and the rest of
      // its FIFO group) after the visibility timeout; say why, since the batch response only names
      // the records.
      logger.warn('reconciling a record failed; it will be redelivered', {
        messageId: record.messageId,
        groupId: record.attributes.MessageGroupId,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      throw error;
    });
    recordMetrics(metrics, outcome);
    if (outcome.type === 'retried')
      logger.warn('reconciling a record failed; retrying it with backoff', {
        messageId: record.messageId,
        groupId: record.attributes.MessageGroupId,
        afterSeconds: outcome.afterSeconds,
        transient: outcome.transient,
        failures: outcome.failures,
        error: outcome.error,
      });
    if (outcome.type === 'reconciled')
      logger.debug('reconciled', {
        messageId: record.messageId,
        kind: outcome.kind,
        ...nonZero(outcome.report),
      });
    return outcome.type;
  };
}
