/**
 * The whole local pipeline (relay, bus, router, reconcile) in a benchmark's worker thread, over the
 * simulated cluster of the main thread: posts `ready` once the relay runs, and on `stop` stops and
 * posts `stopped` with the pipeline's counters. With `cpuProfile`, the thread is profiled from its
 * start to `stop` into that file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import type { PipelineWorkerData } from './bench-cluster.ts';
import { startCpuProfile } from './cpu-profile.ts';

const data = workerData as PipelineWorkerData;
const profile = await startCpuProfile(data.cpuProfile);
const pipeline = await startLocalPipeline({
  kubeconfigPath: data.kubeconfigPath,
  managedKind: 'apps/v1',
  stateDir: data.stateDir,
  apiQps: data.clientQps,
  reconcileConcurrency: data.reconcileConcurrency,
  routerConcurrency: 8,
  visibilityTimeoutSeconds: 30,
  logLevel: data.logLevel ?? 'SILENT',
  log: (line) => process.stderr.write(`${line}\n`),
});
parentPort?.postMessage({ type: 'ready' });
parentPort?.on('message', async (message) => {
  if (message !== 'stop') return;
  await pipeline.stop();
  await profile.stop();
  parentPort?.postMessage({ type: 'stopped', counters: pipeline.counters.snapshot() });
});
