import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  placementOf,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';
import { lambdaContext } from '../support/reconcile-queues.ts';

describe('functions/reconcile', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1'), aNode('n2')], pollWork: false });
  });
  afterAll(async () => harness?.stop());

  it('builds its handler from the environment and emits EMF metrics per invocation', async () => {
    Object.assign(process.env, {
      EVERYNODE_MANAGED_KIND: 'apps/v1',
      EVERYNODE_KUBECONFIG: harness.kubeconfigPath,
      EVERYNODE_WORK_QUEUE_URL: harness.queues.urls.work,
      EVERYNODE_WORK_DLQ_URL: harness.queues.urls.workDlq,
      EVERYNODE_INGRESS_QUEUE_URL: harness.queues.urls.ingress,
      EVERYNODE_SQS_ENDPOINT: harness.queues.endpoint,
      EVERYNODE_API_QPS: '100',
      POWERTOOLS_METRICS_DISABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    const { handler } = await import('../../functions/reconcile/index.ts');
    const ds = createDaemonSet(harness, aDaemonSet('agent'));
    await harness.send(daemonSetMessage(ds));
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const response = await handler(await harness.takeRecords(1), lambdaContext());
      expect(response.batchItemFailures).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    const emf = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line));
    expect(emf).toHaveLength(1);
    const names = emf[0]._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name);
    expect(names).toEqual(
      expect.arrayContaining([
        'ReconcileLatency',
        'Reconciled_daemonset',
        'PairsFannedOut',
        'ApiRequests',
        'Records',
      ]),
    );
    expect(emf[0].ApiRequests).toBeGreaterThan(0);
    // The fan-out's hinted pair messages, handled by the same module-scope handler.
    for (let i = 0; i < 2; i++) await handler(await harness.takeRecords(1), lambdaContext());
    await waitFor(
      'placed',
      () =>
        placementOf(harness, ds.metadata?.uid ?? '').join() === 'n1,n2' &&
        allReady(harness, ds.metadata?.uid ?? ''),
    );
  });
});
