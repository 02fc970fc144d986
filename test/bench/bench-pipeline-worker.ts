/**
 * The whole local pipeline (relay, bus, router, reconcile) in a benchmark's worker thread, over the
 * simulated cluster of the main thread: posts `ready` once the relay runs, and on `stop` stops and
 * posts `stopped` with the pipeline's counters. It manages `managedKind` (default apps/v1);
 * `nodeListReuseMinNodes` overrides the fewest nodes from which DaemonSet steps plan on a kept node
 * LIST (docs/design.md, 15. The DaemonSet step). With `cpuProfile`, the thread is profiled into that
 * file until `stop`: from its start, or from a `profile` message when `profileFrom` is `message`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import type { PipelineWorkerData } from './bench-cluster.ts';
import { type CpuProfile, startCpuProfile } from './cpu-profile.ts';

const data = workerData as PipelineWorkerData;
let profile: CpuProfile | undefined =
  data.profileFrom === 'message' ? undefined : await startCpuProfile(data.cpuProfile);
const pipeline = await startLocalPipeline({
  kubeconfigPath: data.kubeconfigPath,
  managedKind: data.managedKind ?? 'apps/v1',
  stateDir: data.stateDir,
  apiQps: data.clientQps,
  reconcileConcurrency: data.reconcileConcurrency,
  routerConcurrency: 8,
  visibilityTimeoutSeconds: 30,
  ...(data.nodeListReuseMinNodes === undefined ? {} : { nodeListReuseMinNodes: data.nodeListReuseMinNodes }),
  logLevel: data.logLevel ?? 'SILENT',
  log: (line) => process.stderr.write(`${line}\n`),
});
parentPort?.postMessage({ type: 'ready' });
parentPort?.on('message', async (message) => {
  if (message === 'profile') profile ??= await startCpuProfile(data.cpuProfile);
  if (message !== 'stop') return;
  await profile?.stop();
  await pipeline.stop();
  parentPort?.postMessage({ type: 'stopped', counters: pipeline.counters.snapshot() });
});
