/**
 * The router's Lambda handler, built from its ports: `functions/router` exports it with the ports
 * of its environment, and `everynode run` invokes the very same handler through its local SQS event
 * source.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { isRetryable } from '../errors/everynode-error.ts';
import { RecentlySent, routeIngressMessage } from './router.ts';
import type { RouterCounters, RouterDeps } from './router-deps.ts';
import { sendBackAfterTransientFailure } from './router-retry.ts';

/** An SQS-triggered Lambda handler reporting partial batch failures. */
export type RouterHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The router handler: a middy handler with the Powertools logger's Lambda context, routing the
 * records of an ingress (SQS standard) batch in parallel with the Powertools batch processor. A
 * trigger whose routing failed because the API server is unavailable is sent back to the ingress
 * queue with backoff (`router-retry.ts`). It returns the records that failed for another reason
 * worth retrying as `batchItemFailures` — they come back after the visibility timeout, and to the
 * ingress DLQ after maxReceiveCount — and so too the
 * records that can never succeed but are worth keeping (a requeue envelope due too far ahead),
 * logged as errors; unusable triggers count as processed. A batch processor is made per invocation, because the local
 * pipeline may run invocations of one handler concurrently (Lambda runs one at a time per container).
 * With `metrics` (the function's; its counters being {@link metricsCounters} of it), the metrics
 * are flushed as EMF after each invocation.
 */
export function createRouterHandler(deps: RouterDeps, metrics?: Metrics): RouterHandler {
  const recent = new RecentlySent();
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    try {
      await routeIngressMessage(record.body, deps, recent);
    } catch (error) {
      await sendBackAfterTransientFailure(deps, record.body, error);
    }
  };
  const route = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const processor = new BatchProcessor(EventType.SQS);
    const response = await processPartialResponse(event, recordHandler, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
    for (const failure of processor.errors) {
      // Either way SQS receives the message again; a terminal one only to move it to the DLQ.
      if (isRetryable(failure))
        deps.logger.warn('routing failed; the message will be retried', { error: String(failure) });
      else
        deps.logger.error('routing can never succeed; SQS moves the message to the ingress DLQ', {
          error: String(failure),
        });
    }
    return response;
  };
  const handler = middy(route).use(injectLambdaContext(deps.logger));
  return metrics ? handler.use(logMetrics(metrics)) : handler;
}

/** Router counters published as EMF count metrics through `metrics` (flushed by `logMetrics`). */
export function metricsCounters(metrics: Metrics): RouterCounters {
  return {
    count: (name, value = 1) => {
      if (value !== 0) metrics.addMetric(name, MetricUnit.Count, value);
    },
  };
}
