/**
 * `npm run bench -- node-join [--nodes 5000] [--daemonsets 10] [--joins 20]`: nodes joining a
 * cluster of N nodes running D DaemonSets, each join reconciled by the `node` step in process (the
 * reconciler allowed 100 requests/s). Goals (issue 4): <= 2 API requests per pair, in-process
 * latency per pair p50 <= 20 ms (from the start of the node step to that pair's pod created).
 * The first join runs on a cold process (no cached revision hashes); the others on a warm one.
 */
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1Pod } from '@kubernetes/client-node';
import type { NodeMessage } from '../../lib/messages/work-message.ts';
import { buildPipelineDeps } from '../../lib/pipeline/build-pipeline-deps.ts';
import type { PipelineDeps } from '../../lib/pipeline/pipeline-deps.ts';
import { reconcileNode } from '../../lib/pipeline/reconcile-node.ts';
import { startLocalQueues } from '../../lib/queue/local-queues.ts';
import { aDaemonSet } from '../builders.ts';
import {
  figure,
  isAvailablePod,
  populateDaemonSet,
  quantile,
  reconcileRequests,
  startBenchCluster,
  waitUntil,
} from './bench-cluster.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    daemonsets: { type: 'string', default: '10' },
    joins: { type: 'string', default: '20' },
    'client-qps': { type: 'string', default: '95' },
  },
});
const [nodes, daemonSets, joins] = [Number(values.nodes), Number(values.daemonsets), Number(values.joins)];

const cluster = await startBenchCluster(nodes);
const queues = await startLocalQueues();
try {
  console.log(`populating ${daemonSets} DaemonSets on ${nodes} nodes (${nodes * daemonSets} pods)…`);
  for (let i = 0; i < daemonSets; i++)
    populateDaemonSet(cluster.sim, aDaemonSet(`agent-${i}`, { namespace: 'default' }));
  await waitUntil(
    'every pod ready',
    () =>
      (cluster.sim.store.list('pods') as unknown as V1Pod[]).filter(isAvailablePod).length ===
      nodes * daemonSets,
    10 * 60_000,
    1000,
  );
  const qps = Number(values['client-qps']);
  const base = buildPipelineDeps({
    config: {
      managedKind: 'apps/v1',
      cluster: { type: 'kubeconfig', path: cluster.kubeconfigPath },
      apiQps: qps,
      apiBurst: qps,
      queues: { work: queues.urls.work, workDlq: queues.urls.workDlq, ingress: queues.urls.ingress },
      sqsEndpoint: queues.endpoint,
    },
    logger: new Logger({ logLevel: 'SILENT' }),
    sqs: queues.sqs,
  });
  const latencies: number[] = [];
  const perPair: number[] = [];
  let started = 0;
  const deps: PipelineDeps = {
    ...base,
    kube: {
      ...base.kube,
      createPod: async (pod) => {
        const created = await base.kube.createPod(pod);
        latencies.push(performance.now() - started);
        return created;
      },
    },
  };
  for (let join = 1; join <= joins; join++) {
    const name = `joined-${join}`;
    cluster.sim.nodes.add(name);
    const before = reconcileRequests(cluster.sim);
    const count = latencies.length;
    started = performance.now();
    const message: NodeMessage = {
      v: 1,
      kind: 'node',
      cause: { type: 'resync', at: new Date().toISOString() },
      node: { name },
    };
    const report = await reconcileNode(deps, message);
    const pairs = latencies.length - count;
    if (report.created !== daemonSets || pairs !== daemonSets)
      throw new Error(`join ${join}: ${report.created} pods created`);
    perPair.push((reconcileRequests(cluster.sim) - before) / daemonSets);
    if (join === 1)
      console.log(
        `cold join: ${perPair[0]?.toFixed(2)} requests per pair, last pair after ${latencies.at(-1)?.toFixed(1)} ms`,
      );
  }
  const warm = perPair.slice(1);
  console.log(
    `\nnode-join: ${joins} nodes joining ${nodes} nodes with ${daemonSets} DaemonSets, reconciler limited to 100 requests/s`,
  );
  figure(
    'API requests per pair (cold, first join)',
    (perPair[0] ?? 0).toFixed(2),
    '<= 2',
    (perPair[0] ?? 0) <= 2,
  );
  figure(
    'API requests per pair (warm, mean)',
    (warm.reduce((a, b) => a + b, 0) / Math.max(1, warm.length)).toFixed(2),
    '<= 2',
    warm.every((r) => r <= 2),
  );
  figure(
    'in-process latency per pair p50 (ms)',
    quantile(latencies, 0.5).toFixed(1),
    '<= 20',
    quantile(latencies, 0.5) <= 20,
  );
  figure('in-process latency per pair p99 (ms)', quantile(latencies, 0.99).toFixed(1), '(none)', true);
} finally {
  await queues.stop();
  await cluster.stop();
}
