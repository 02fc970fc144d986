/**
 * Node readiness gates through the whole local pipeline: `npm run bench -- node-ready --nodes 1000
 * --daemonsets 10 [--gating 3] [--joins 30] [--interval-ms 500] [--api-qps 2000]
 * [--reconcile-concurrency 16] [--release-timeout-s 60] [--cpu-profile FILE]`.
 *
 * Laid out as node-join-e2e: a simulated cluster of `--nodes` nodes in a worker thread, the local
 * pipeline (relay → bus + journal → ingress → router → work FIFO → reconcile) in this one. It runs
 * `--daemonsets` everynode.dev/v1 DaemonSets, the first `--gating` of them gating nodes
 * (BootstrapOnly, the default key everynode.dev/not-ready), converged first. Then `--joins` nodes
 * join `--interval-ms` apart, registered with the taint everynode.dev/not-ready:NoSchedule, and
 * everynode lifts it once their gating pods are available. Measured in the API server's store:
 * node created → taint gone, and the part that is ours, the last gating pod's Ready → taint gone
 * (goal p50 ≤ 50 ms, p99 ≤ 250 ms); from its request counters, the gate's API requests per released
 * node (the node patch, the nodes/status patch, GETs of nodes, Node Events; goal ≤ 3) and all of the
 * reconciler's per joined node. Nodes never released are named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type LocalPipeline, startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import { startCpuProfile } from './cpu-profile.ts';
import type {
  ClusterProgress,
  JoinedNodeGate,
  NodeReadyClusterRequest,
  NodeReadyClusterTask,
  RequestCount,
} from './node-ready-cluster.ts';
import { tapReadyTriggers } from './node-ready-relay-tap.ts';
import { nodeReadyReport, requestsBetween } from './node-ready-report.ts';
import { type Ask, startRpcWorker } from './worker-rpc.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    daemonsets: { type: 'string', default: '10' },
    gating: { type: 'string', default: '3' },
    joins: { type: 'string', default: '30' },
    'interval-ms': { type: 'string', default: '500' },
    'api-qps': { type: 'string', default: '2000' },
    'reconcile-concurrency': { type: 'string', default: '16' },
    /** How long after the last join the nodes still gated are waited for. */
    'release-timeout-s': { type: 'string', default: '60' },
    /** A CPU profile of the pipeline's thread over the joins. */
    'cpu-profile': { type: 'string' },
  },
});
const NODES = Number(values.nodes);
const DAEMONSETS = Number(values.daemonsets);
const GATING = Math.min(Number(values.gating), DAEMONSETS);
const JOINS = Number(values.joins);
const INTERVAL_MS = Number(values['interval-ms']);
const RELEASE_TIMEOUT_MS = Number(values['release-timeout-s']) * 1000;

type ClusterAsk = Ask<NodeReadyClusterRequest>;

/** Polls `check` every 200 ms until it holds; false when `timeoutMs` passed first. */
async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  progress?: () => void,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let lastProgress = Date.now();
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    if (progress && Date.now() - lastProgress >= 10_000) {
      progress();
      lastProgress = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

/** True once the ingress and work queues have held nothing for two looks 500 ms apart. */
async function idle(pipeline: LocalPipeline): Promise<boolean> {
  for (let look = 0; look < 2; look++) {
    const d = await pipeline.queueDepths();
    if (d.ingress !== 0 || d.work !== 0) return false;
    if (look === 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return true;
}

/** Creates the DaemonSets, waits until every daemon pod is ready and the pipeline idle; returns seconds. */
async function converge(ask: ClusterAsk, pipeline: LocalPipeline): Promise<number> {
  const started = Date.now();
  await ask({ cmd: 'daemonsets', count: DAEMONSETS, gating: GATING });
  const stored = await ask<ClusterProgress>({ cmd: 'progress' });
  if (stored.gatingStored !== GATING)
    throw new Error(
      `${stored.gatingStored} DaemonSets kept spec.nodeReadiness, ${GATING} were created with it`,
    );
  const wanted = NODES * DAEMONSETS;
  const progress = async () => {
    const p = await ask<ClusterProgress>({ cmd: 'progress' });
    process.stderr.write(`  setup: ${p.pods} / ${wanted} pods created, ${p.readyPods} ready\n`);
  };
  const ready = await until(
    async () => (await ask<ClusterProgress>({ cmd: 'progress' })).readyPods >= wanted,
    1_800_000,
    () => void progress(),
  );
  if (!ready || !(await until(() => idle(pipeline), 600_000)))
    throw new Error('the setup did not converge: every daemon pod ready and the pipeline idle');
  return (Date.now() - started) / 1000;
}

/** True when every joined node is released. */
async function allReleased(ask: ClusterAsk): Promise<boolean> {
  const joined = await ask<JoinedNodeGate[]>({ cmd: 'gates' });
  return joined.length >= JOINS && joined.every((n) => n.liftedAt !== undefined);
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-bench-node-ready-'));
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  const task: NodeReadyClusterTask = { nodes: NODES, kubeconfigPath };
  const cluster = new URL('./node-ready-cluster.ts', import.meta.url);
  const ask = await startRpcWorker<NodeReadyClusterRequest>(cluster, task);
  const pipeline = await startLocalPipeline({
    kubeconfigPath,
    managedKind: 'everynode.dev/v1',
    stateDir,
    apiQps: Number(values['api-qps']),
    reconcileConcurrency: Number(values['reconcile-concurrency']),
    log: (line) => process.stderr.write(`${line}\n`),
    logLevel: 'WARN',
  });
  const readyPublished = tapReadyTriggers(pipeline.bus);
  const setupSeconds = await converge(ask, pipeline);
  const before = await ask<RequestCount[]>({ cmd: 'requests' });
  const countersBefore = pipeline.counters.snapshot();
  const profile = await startCpuProfile(values['cpu-profile']);
  for (let i = 1; i <= JOINS; i++) {
    await ask({ cmd: 'join', name: `joined-${String(i).padStart(3, '0')}` });
    if (i < JOINS) await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
  await until(() => allReleased(ask), RELEASE_TIMEOUT_MS);
  await profile.stop();
  // The condition writes and Events that follow a release are counted too.
  await until(() => idle(pipeline), 60_000);
  const after = await ask<RequestCount[]>({ cmd: 'requests' });
  const joined = await ask<JoinedNodeGate[]>({ cmd: 'gates' });
  const setup = {
    nodes: NODES,
    daemonSets: DAEMONSETS,
    gating: GATING,
    joins: JOINS,
    intervalMs: INTERVAL_MS,
  };
  process.stdout.write(
    `${nodeReadyReport({ ...setup, setupSeconds }, joined, requestsBetween(before, after), readyPublished)}\n`,
  );
  const steps = Object.entries(pipeline.counters.snapshot())
    .filter(([name]) => /^Reconciled_|^NodeReadiness|^Requeues$|^PairsFannedOut$/.test(name))
    .map(([name, value]) => `${name.replace('Reconciled_', '')} ${value - (countersBefore[name] ?? 0)}`);
  process.stdout.write(`  steps during the joins: ${steps.join(', ')}\n`);
  await pipeline.stop();
  await ask({ cmd: 'stop' });
  rmSync(stateDir, { recursive: true, force: true });
}

await main();
