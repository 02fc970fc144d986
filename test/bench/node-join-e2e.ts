/**
 * Node join latency through the whole local pipeline: `npm run bench -- node-join-e2e --nodes 1000
 * --daemonsets 10 [--joins 30] [--orphans 30] [--interval-ms 300] [--api-qps 2000]
 * [--reconcile-concurrency 16] [--cpu-profile FILE]`.
 *
 * A simulated cluster of `--nodes` nodes (in a worker thread: its own event loop, as a real API
 * server is apart from its controllers) runs `--daemonsets` everynode.dev/v1 DaemonSets, converged by
 * the local pipeline first (relay → bus + journal → ingress → router → work FIFO → reconcile, all in
 * this process). Then `--joins` nodes join one after another, and for each daemon pod created on a
 * joined node the time from the node's creation to the pod's creation is measured in the API server's
 * store. Goal: p50 ≤ 150 ms, p99 ≤ 500 ms. Also printed: the reconciler's API requests per joined
 * (DaemonSet, node) pair, everything the DaemonSet steps did meanwhile included. Then `--orphans`
 * pods are made by hand, as many apart, each matching one DaemonSet's selector on a node that
 * runs its pod (relay orphan watch → router → pair step: adopt, then delete the extra pod), and the
 * time from each one's creation to its deletion is measured the same way, held to the same goal.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type LocalPipeline, startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import { startCpuProfile } from './cpu-profile.ts';
import type { ClusterRequest, ClusterTask } from './node-join-e2e-cluster.ts';
import { type Ask, startRpcWorker } from './worker-rpc.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    daemonsets: { type: 'string', default: '10' },
    joins: { type: 'string', default: '30' },
    orphans: { type: 'string', default: '30' },
    'interval-ms': { type: 'string', default: '300' },
    'api-qps': { type: 'string', default: '2000' },
    'reconcile-concurrency': { type: 'string', default: '16' },
    /** Writes a CPU profile of the pipeline's thread during the joins to this file. */
    'cpu-profile': { type: 'string' },
  },
});
const NODES = Number(values.nodes);
const DAEMONSETS = Number(values.daemonsets);
const JOINS = Number(values.joins);
const ORPHANS = Number(values.orphans);
const INTERVAL_MS = Number(values['interval-ms']);

type ClusterAsk = Ask<ClusterRequest>;

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  progress?: () => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProgress = Date.now();
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    if (progress && Date.now() - lastProgress >= 10_000) {
      progress();
      lastProgress = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Creates the DaemonSets and waits until every node runs them and the pipeline is idle; returns seconds. */
async function converge(ask: ClusterAsk, pipeline: LocalPipeline): Promise<number> {
  const started = Date.now();
  await ask({ cmd: 'daemonsets', count: DAEMONSETS });
  const progress = () => {
    const c = pipeline.counters;
    process.stderr.write(
      `  setup: ${c.get('PodsCreated')} / ${NODES * DAEMONSETS} pods created, relay ${JSON.stringify(pipeline.relay?.stats)}\n`,
    );
  };
  await until(
    'every DaemonSet runs on every node',
    async () => (await ask<number>({ cmd: 'pods' })) >= NODES * DAEMONSETS,
    1_800_000,
    progress,
  );
  await until(
    'the pipeline is idle',
    async () => {
      const d = await pipeline.queueDepths();
      return d.ingress === 0 && d.work === 0;
    },
    600_000,
  );
  return (Date.now() - started) / 1000;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The Samples answer of the cluster worker. */
interface Samples {
  readonly samples: number[];
  readonly orphanSamples: number[];
  readonly reconcileRequests: number;
  readonly byRequest: Record<string, number>;
}

/** The requests made between `before` and `after`, by component, verb and resource, largest first. */
function requestsBetween(before: Samples, after: Samples): string {
  return Object.entries(after.byRequest)
    .map(([key, count]) => [key, count - (before.byRequest[key] ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key}: ${count}`)
    .join(', ');
}

function report(setupSeconds: number, samples: readonly number[], requestsPerPair: number): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'MISSED');
  const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)];
  return (
    `node-join-e2e: ${NODES} nodes, ${DAEMONSETS} DaemonSets (everynode.dev/v1), ${JOINS} joins every ${INTERVAL_MS} ms ` +
    `= ${samples.length} daemon pods, through relay → bus + journal → ingress → router → work FIFO → reconcile\n` +
    `  setup: ${NODES * DAEMONSETS} daemon pods converged in ${setupSeconds.toFixed(1)} s\n` +
    `  node created → daemon pod created: p50 ${ms(p50)} (goal ≤ 150 ms: ${verdict(p50, 150)}), ` +
    `p99 ${ms(p99)} (goal ≤ 500 ms: ${verdict(p99, 500)}), min ${ms(sorted[0] ?? Number.NaN)}, max ${ms(sorted.at(-1) ?? Number.NaN)}\n` +
    `  reconcile API requests per joined pair (DaemonSet steps included): ${requestsPerPair.toFixed(2)}\n`
  );
}

/** Makes the hand-made pods, one every interval, and reports how soon each was deleted. */
async function orphans(ask: ClusterAsk, before: Samples): Promise<string> {
  for (let i = 1; i <= ORPHANS; i++) {
    const node = `node-${String(((i - 1) % NODES) + 1).padStart(5, '0')}`;
    const app = `agent-${String(((i - 1) % DAEMONSETS) + 1).padStart(2, '0')}`;
    await ask({ cmd: 'orphan', name: `hand-made-${String(i).padStart(3, '0')}`, node, app });
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
  const deleted = async () => (await ask<Samples>({ cmd: 'samples' })).orphanSamples.length >= ORPHANS;
  await until('every hand-made pod is deleted', deleted, 120_000);
  const after = await ask<Samples>({ cmd: 'samples' });
  const sorted = [...after.orphanSamples].sort((a, b) => a - b);
  const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)];
  const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'MISSED');
  const perOrphan = (after.reconcileRequests - before.reconcileRequests) / ORPHANS;
  return (
    `  ${ORPHANS} hand-made pods matching a DaemonSet on a node running it, created → deleted: ` +
    `p50 ${p50.toFixed(0)} ms (goal ≤ 150 ms: ${verdict(p50, 150)}), p99 ${p99.toFixed(0)} ms ` +
    `(goal ≤ 500 ms: ${verdict(p99, 500)}); reconcile API requests per pod: ${perOrphan.toFixed(2)}\n` +
    `  API requests for them: ${requestsBetween(before, after)}\n`
  );
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-bench-'));
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  const task: ClusterTask = { nodes: NODES, kubeconfigPath };
  const ask = await startRpcWorker<ClusterRequest>(
    new URL('./node-join-e2e-cluster.ts', import.meta.url),
    task,
  );
  const pipeline = await startLocalPipeline({
    kubeconfigPath,
    managedKind: 'everynode.dev/v1',
    stateDir,
    apiQps: Number(values['api-qps']),
    reconcileConcurrency: Number(values['reconcile-concurrency']),
    log: (line) => process.stderr.write(`${line}\n`),
    logLevel: 'WARN',
  });
  const setupSeconds = await converge(ask, pipeline);
  const before = await ask<Samples>({ cmd: 'samples' });
  const countersBefore = pipeline.counters.snapshot();
  const profile = await startCpuProfile(values['cpu-profile']);
  for (let i = 1; i <= JOINS; i++) {
    await ask({ cmd: 'join', name: `joined-${String(i).padStart(3, '0')}` });
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
  const complete = async () =>
    (await ask<{ samples: number[] }>({ cmd: 'samples' })).samples.length >= JOINS * DAEMONSETS;
  await until('every joined node runs every DaemonSet', complete, 120_000);
  const after = await ask<Samples>({ cmd: 'samples' });
  await profile.stop();
  const requestsPerPair = (after.reconcileRequests - before.reconcileRequests) / (JOINS * DAEMONSETS);
  process.stdout.write(report(setupSeconds, after.samples, requestsPerPair));
  process.stdout.write(`  API requests during the joins: ${requestsBetween(before, after)}\n`);
  const steps = Object.entries(pipeline.counters.snapshot())
    .filter(([name]) => name.startsWith('Reconciled_') || name === 'PairsFannedOut' || name === 'Requeues')
    .map(([name, value]) => `${name.replace('Reconciled_', '')} ${value - (countersBefore[name] ?? 0)}`);
  process.stdout.write(`  steps during the joins: ${steps.join(', ')}\n`);
  process.stdout.write(await orphans(ask, after));
  await pipeline.stop();
  await ask({ cmd: 'stop' });
}

await main();
