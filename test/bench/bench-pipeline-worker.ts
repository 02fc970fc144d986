/**
 * The whole local pipeline (relay, bus, router, reconcile) in a benchmark's worker thread, over the
 * simulated cluster of the main thread: posts `ready` once the relay runs, and on `stop` stops and
 * posts `stopped` with the pipeline's counters.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import type { PipelineWorkerData } from './bench-cluster.ts';

const data = workerData as PipelineWorkerData;
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
  parentPort?.postMessage({ type: 'stopped', counters: pipeline.counters.snapshot() });
});
