/**
 * `npm run bench -- rolling-update [--nodes 5000] [--max-unavailable 250] [--pod-ready-seconds 10]
 * [--cpu-profile FILE]`:
 * a new image rolled over N running pods through the whole local pipeline, the reconciler allowed
 * 100 requests/s. Goals: never more than maxUnavailable nodes without an available pod,
 * and done within 1.10 x its floor: the larger of (N / maxUnavailable waves x the pod-ready delay,
 * the pod-ready delay being the simulated time from a pod's binding to its readiness) and (the N
 * deletes and N creates it needs / the request budget); both terms are printed. Also prints, without goals, the
 * reconciler's largest LIST of each resource and how often it listed it, and the peak heap of the
 * pipeline's thread (relay, router and reconcile together). Every 10 s it prints the progress, the
 * reconciler's requests per second and how busy the pipeline's thread was over those 10 s;
 * `--cpu-profile FILE` writes a CPU profile of that thread.
 */
import { parseArgs } from 'node:util';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../support/builders.ts';
import {
  figure,
  isAvailablePod,
  LIMIT_QPS,
  type PipelineWorkerData,
  populateDaemonSet,
  reconcileRequests,
  requestBreakdown,
  startBenchCluster,
  waitUntil,
} from './bench-cluster.ts';
import { PIPELINE_THREAD, printReconcilerFootprint } from './reconciler-footprint.ts';
import { trackRolloutPhases } from './rollout-phases.ts';
import { printStatusExactness, STATUS_EXACT_WITHIN_MS } from './status-recount.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    'max-unavailable': { type: 'string', default: '250' },
    'pod-ready-seconds': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'client-qps': { type: 'string', default: '100' },
    /** The pipeline's log level (SILENT, ERROR, WARN, INFO, DEBUG), logged to stderr. */
    'log-level': { type: 'string', default: 'SILENT' },
    'cpu-profile': { type: 'string' },
  },
});
const nodes = Number(values.nodes);
const maxUnavailable = Number(values['max-unavailable']);
const readySeconds = Number(values['pod-ready-seconds']);
const V2 = 'busybox:1.37';

const cluster = await startBenchCluster(nodes, {
  podStartSeconds: 1,
  podReadySeconds: Math.max(0, readySeconds - 1),
});
const stored = () => cluster.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;

/** Nodes without an available pod of the DaemonSet, kept up to date from the store's change feed. */
function watchUnavailable(): { now: () => number; worst: () => number; stop: () => void } {
  const availableOn = new Map<string, string>();
  const perNode = new Map<string, number>();
  let worst = 0;
  const unavailable = () => nodes - perNode.size;
  const stop = cluster.sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const pod = event.object as unknown as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const was = availableOn.get(uid);
    const is = event.type !== 'DELETED' && isAvailablePod(pod) ? targetNodeName(pod) : undefined;
    if (was === is) return;
    if (was !== undefined) {
      availableOn.delete(uid);
      const left = (perNode.get(was) ?? 1) - 1;
      if (left > 0) perNode.set(was, left);
      else perNode.delete(was);
    }
    if (is !== undefined) {
      availableOn.set(uid, is);
      perNode.set(is, (perNode.get(is) ?? 0) + 1);
    }
    worst = Math.max(worst, unavailable());
  });
  for (const pod of cluster.sim.store.list('pods') as unknown as V1Pod[]) {
    const node = isAvailablePod(pod) ? targetNodeName(pod) : undefined;
    if (node === undefined) continue;
    availableOn.set(pod.metadata?.uid ?? '', node);
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  return { now: unavailable, worst: () => worst, stop };
}

try {
  const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } };
  populateDaemonSet(
    cluster.sim,
    aDaemonSet('agent', { podSpec: { terminationGracePeriodSeconds: 0 }, updateStrategy: strategy }),
  );
  const available = () =>
    (cluster.sim.store.list('pods') as unknown as V1Pod[]).filter(isAvailablePod).length;
  await waitUntil('every pod available', () => available() === nodes, 10 * 60_000, 500);
  await cluster.startPipeline({
    reconcileConcurrency: Number(values.concurrency),
    clientQps: Number(values['client-qps']),
    logLevel: values['log-level'] as PipelineWorkerData['logLevel'],
    ...(values['cpu-profile'] ? { cpuProfile: values['cpu-profile'] } : {}),
  });
  await waitUntil(
    'the status to be written',
    () => stored().status?.numberAvailable === nodes,
    10 * 60_000,
    500,
  );
  const unavailable = watchUnavailable();
  const phases = trackRolloutPhases(cluster.sim, (pod) => pod.spec?.containers[0]?.image === V2);
  cluster.sim.counters.reset();
  cluster.pipelineHeap.reset();
  const started = Date.now();
  const ds = stored();
  const container = ds.spec?.template.spec?.containers[0];
  if (container) container.image = V2;
  cluster.sim.store.update('apps/daemonsets', ds as unknown as KubeObject);
  const updated = () =>
    (cluster.sim.store.list('pods') as unknown as V1Pod[]).filter(
      (p) => isAvailablePod(p) && p.spec?.containers[0]?.image === V2,
    ).length;
  let lastReport = started;
  let lastRequests = 0;
  cluster.pipelineBusy();
  await waitUntil(
    'the rollout to finish',
    () => {
      if (Date.now() - lastReport > 10_000) {
        const requests = reconcileRequests(cluster.sim);
        const rate = ((requests - lastRequests) * 1000) / (Date.now() - lastReport);
        const busy = cluster.pipelineBusy() ?? 0;
        lastReport = Date.now();
        lastRequests = requests;
        const s = ((Date.now() - started) / 1000).toFixed(0);
        console.log(
          `  ${s} s: ${updated()} updated and available, ${unavailable.now()} unavailable (worst ${unavailable.worst()}); ${rate.toFixed(0)} requests/s, pipeline thread ${(busy * 100).toFixed(0)} % busy`,
        );
      }
      const status = stored().status;
      return (
        updated() === nodes && status?.updatedNumberScheduled === nodes && status.numberAvailable === nodes
      );
    },
    60 * 60_000,
    250,
  );
  const seconds = (Date.now() - started) / 1000;
  const heap = cluster.pipelineHeap.read();
  unavailable.stop();
  phases.stop();
  const waves = Math.ceil(nodes / maxUnavailable);
  const wavesFloor = waves * readySeconds;
  const writesFloor = (2 * nodes) / LIMIT_QPS;
  const floor = Math.max(wavesFloor, writesFloor);
  const goal = 1.1 * floor;
  console.log(
    `\nrolling-update: ${nodes} nodes, maxUnavailable ${maxUnavailable} (${waves} waves), pod-ready delay ${readySeconds} s, reconciler limited to ${LIMIT_QPS} requests/s`,
  );
  figure(
    'most nodes unavailable at once',
    String(unavailable.worst()),
    `<= ${maxUnavailable}`,
    unavailable.worst() <= maxUnavailable,
  );
  figure('time to finish (s)', seconds.toFixed(1), `<= ${goal.toFixed(0)}`, seconds <= goal);
  console.log(
    `floor ${floor.toFixed(0)} s: the larger of ${waves} waves x ${readySeconds} s = ${wavesFloor.toFixed(0)} s and ${2 * nodes} writes / ${LIMIT_QPS} requests/s = ${writesFloor.toFixed(0)} s`,
  );
  figure('time / floor', (seconds / floor).toFixed(3), '<= 1.10', seconds <= goal);
  console.log(`where a node's time went:\n${phases.report()}`);
  await printStatusExactness(cluster.sim, 'default', 'agent', STATUS_EXACT_WITHIN_MS);
  const requests = reconcileRequests(cluster.sim);
  console.log(
    `requests ${requests} (${(requests / nodes).toFixed(2)} per node): ${requestBreakdown(cluster.sim)}`,
  );
  printReconcilerFootprint({ sim: cluster.sim, seconds, heap, ...PIPELINE_THREAD });
  console.log(`pipeline counters: ${JSON.stringify(await cluster.stopPipeline())}`);
} finally {
  await cluster.stop();
}
