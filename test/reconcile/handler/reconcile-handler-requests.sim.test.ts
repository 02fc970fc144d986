import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReconcileHandler,
  type ReconcileHandler,
} from '../../../lib/reconcile/handler/reconcile-handler.ts';
import { buildReconcileDeps } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { ReconcileConfig } from '../../../lib/reconcile/setup/reconcile-config.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, daemonSetMessage } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { lambdaContext } from '../../support/reconcile-queues.ts';

/** Metrics that remember the values added to each metric. */
class RecordedMetrics extends Metrics {
  readonly values = new Map<string, number[]>();

  override addMetric(...args: Parameters<Metrics['addMetric']>): this {
    const [name, , value] = args;
    this.values.set(name, [...(this.values.get(name) ?? []), value]);
    return super.addMetric(...args);
  }
}

/** A reconcile handler of its own deps, whose API requests the simulated cluster tells apart by `userAgent`. */
function handlerAs(
  harness: Harness,
  userAgent: string,
): { handler: ReconcileHandler; metrics: RecordedMetrics } {
  const config: ReconcileConfig = {
    managedKind: harness.managedKind,
    cluster: { type: 'kubeconfig', path: harness.kubeconfigPath },
    apiQps: 2000,
    apiBurst: 2000,
    queues: {
      work: harness.queues.urls.work,
      workDlq: harness.queues.urls.workDlq,
      ingress: harness.queues.urls.ingress,
    },
  };
  const logger = new Logger({ serviceName: userAgent, logLevel: 'SILENT' });
  const deps = buildReconcileDeps({ config, logger, userAgent, sqs: harness.queues.sqs });
  const metrics = new RecordedMetrics({ namespace: 'test' });
  return { handler: createReconcileHandler({ deps, logger, metrics }), metrics };
}

describe('the ApiRequests metric of overlapping batches in one process', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map((name) => aNode(name)),
      pollWork: false,
    });
  });
  afterAll(async () => harness?.stop());

  it('counts for each batch exactly the requests the API server served it', async () => {
    const names = ['alpha', 'beta', 'gamma'];
    const sets = names.map((name) => createDaemonSet(harness, aDaemonSet(name)));
    await harness.send(...sets.map((ds) => daemonSetMessage(ds)));
    const records = (await harness.takeRecords(names.length)).Records;
    const runs = names.map((name) => {
      const { handler, metrics } = handlerAs(harness, `everynode/reconcile-${name}`);
      const event: SQSEvent = { Records: records.filter((r) => JSON.parse(r.body).daemonSet.name === name) };
      return { name, handler, metrics, event };
    });

    // All at once, as the local pipeline's concurrent invocations run.
    const responses = await Promise.all(runs.map((run) => run.handler(run.event, lambdaContext())));

    expect(responses).toEqual(runs.map(() => ({ batchItemFailures: [] })));
    const reported = runs.map((run) => ({ name: run.name, requests: run.metrics.values.get('ApiRequests') }));
    const served = runs.map((run) => ({
      name: run.name,
      requests: [harness.sim.counters.total({ userAgent: `everynode/reconcile-${run.name}` })],
    }));
    expect(reported).toEqual(served);
    for (const { requests } of served) expect(requests[0]).toBeGreaterThan(0);
  });
});
