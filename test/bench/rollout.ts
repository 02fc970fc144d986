/**
 * `npm run bench -- rollout [--nodes 5000] [--sizing [--resize]] [--cpu-profile FILE]`: a new DaemonSet on N nodes through
 * the whole local pipeline, the reconciler allowed 100 requests/s. Goals: API requests per created
 * pod <= 1.05, status writes <= 1 per 100 pods, time to converge <= 1.05 x N / 100 s up to 5,000
 * nodes and <= 1.10 x beyond (the floor counts the creates alone: the pods' start and readiness
 * delays and the last status refresh come on top). With
 * `--cpu-profile`, FILE profiles the simulated cluster's thread and FILE.pipeline the pipeline's.
 * Also prints, without goals, the reconciler's largest LIST of each resource and how often it
 * listed it, and the peak heap of the pipeline's thread (relay, router and reconcile together).
 *
 * `--sizing`: the DaemonSet sizes its pod for each node (`everynode.dev/node-sizing`, a share of the
 * node's allocatable, clamped) over the simulator's mix of five instance types; the same goals
 * hold, and every pod's requests must equal the rule's value for its node. `--resize` then changes
 * the rule on the converged cluster under `everynode.dev/in-place: IfPossible` (node-sizing-bench.ts).
 */
import { parseArgs } from 'node:util';
import type { V1DaemonSet } from '@kubernetes/client-node';
import { aDaemonSet } from '../support/builders.ts';
import {
  createDaemonSet,
  figure,
  LIMIT_QPS,
  reconcileRequests,
  requestBreakdown,
  startBenchCluster,
  waitUntil,
} from './bench-cluster.ts';
import { startCpuProfile } from './cpu-profile.ts';
import {
  PROPORTIONAL,
  printSizes,
  resizeBench,
  SIZED_POD_SPEC,
  sizingAnnotations,
} from './node-sizing-bench.ts';
import { PIPELINE_THREAD, printReconcilerFootprint } from './reconciler-footprint.ts';
import { trackRolloutPhases } from './rollout-phases.ts';
import { printStatusExactness, STATUS_EXACT_WITHIN_MS } from './status-recount.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '8' },
    'client-qps': { type: 'string', default: '100' },
    'pod-start-seconds': { type: 'string', default: '1' },
    'pod-ready-seconds': { type: 'string', default: '1' },
    'cpu-profile': { type: 'string' },
    sizing: { type: 'boolean', default: false },
    resize: { type: 'boolean', default: false },
  },
});
const sizing = values.sizing || values.resize;
const nodes = Number(values.nodes);

const t0 = Date.now();
const phase = (what: string) => console.log(`  [${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}`);
const cluster = await startBenchCluster(nodes, {
  podStartSeconds: Number(values['pod-start-seconds']),
  podReadySeconds: Number(values['pod-ready-seconds']),
});
phase('cluster started');
try {
  await cluster.startPipeline({
    reconcileConcurrency: Number(values.concurrency),
    clientQps: Number(values['client-qps']),
    ...(values['cpu-profile'] ? { cpuProfile: `${values['cpu-profile']}.pipeline` } : {}),
  });
  phase('pipeline started');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  cluster.sim.counters.reset();
  cluster.pipelineHeap.reset();
  const profile = await startCpuProfile(values['cpu-profile']);
  const started = Date.now();
  const phases = trackRolloutPhases(cluster.sim, () => true);
  createDaemonSet(
    cluster.sim,
    aDaemonSet('agent', {
      podSpec: { terminationGracePeriodSeconds: 0, ...(sizing ? SIZED_POD_SPEC : {}) },
      ...(sizing ? { annotations: sizingAnnotations(PROPORTIONAL) } : {}),
    }),
  );
  const stored = () => cluster.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
  let lastReport = started;
  let lastRequests = 0;
  await waitUntil(
    'the DaemonSet to converge',
    () => {
      const status = stored().status;
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        const made = reconcileRequests(cluster.sim);
        const rate = ((made - lastRequests) / 10).toFixed(0);
        lastRequests = made;
        console.log(
          `  ${((Date.now() - started) / 1000).toFixed(0)} s: ${rate} requests/s, ${status?.currentNumberScheduled ?? 0} scheduled, ${status?.numberAvailable ?? 0} available`,
        );
      }
      return (
        status?.numberAvailable === nodes &&
        status.updatedNumberScheduled === nodes &&
        status.desiredNumberScheduled === nodes
      );
    },
    30 * 60_000,
  );
  const seconds = (Date.now() - started) / 1000;
  const heap = cluster.pipelineHeap.read();
  phases.stop();
  await profile.stop();
  phase('converged');
  const created = reconcileRequests(cluster.sim, { verb: 'create', resource: 'pods' });
  const requests = reconcileRequests(cluster.sim);
  const statusWrites = reconcileRequests(cluster.sim, { resource: 'apps/daemonsets', subresource: 'status' });
  const limit = nodes / LIMIT_QPS;
  const timeGoal = nodes <= 5000 ? 1.05 : 1.1;
  console.log(`\nrollout: a new DaemonSet on ${nodes} nodes, reconciler limited to ${LIMIT_QPS} requests/s`);
  figure('API requests per created pod', (requests / nodes).toFixed(3), '<= 1.05', requests / nodes <= 1.05);
  figure(
    'status writes per 100 pods',
    ((statusWrites / nodes) * 100).toFixed(2),
    '<= 1',
    (statusWrites / nodes) * 100 <= 1,
  );
  figure(
    'time to converge (s)',
    seconds.toFixed(1),
    `<= ${(timeGoal * limit).toFixed(1)}`,
    seconds <= timeGoal * limit,
  );
  figure(
    'time to converge / (nodes / 100 per s)',
    (seconds / limit).toFixed(3),
    `<= ${timeGoal.toFixed(2)}`,
    seconds / limit <= timeGoal,
  );
  console.log(`where a node's time went:\n${phases.report()}`);
  console.log(`pod create requests ${created}; requests ${requests}: ${requestBreakdown(cluster.sim)}`);
  await printStatusExactness(cluster.sim, 'default', 'agent', STATUS_EXACT_WITHIN_MS);
  printReconcilerFootprint({ sim: cluster.sim, seconds, heap, ...PIPELINE_THREAD });
  if (sizing) printSizes(cluster.sim);
  if (values.resize) await resizeBench(cluster);
  console.log(`pipeline counters: ${JSON.stringify(await cluster.stopPipeline())}`);
  if (process.env.BENCH_DEBUG)
    console.log(
      JSON.stringify(cluster.sim.counters.snapshot().filter((e) => !e.userAgent.includes('reconcile'))),
    );
} finally {
  await cluster.stop();
  phase('stopped');
}
