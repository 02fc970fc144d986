/**
 * The whole local pipeline managing `everynode.dev/v1` DaemonSets, in `bad-rollout`'s worker
 * thread (bench-pipeline-worker.ts runs it for apps/v1, whose status holds no rollout record):
 * posts `ready` once the relay runs, and on `stop` stops and posts `stopped` with the pipeline's
 * counters. `nodeListReuseMinNodes` overrides the fewest nodes from which DaemonSet steps plan on a
 * kept node LIST (docs/design.md, 15. The DaemonSet step). With `cpuProfile`, the thread is profiled
 * from a `profile` message (the image change) to `stop` into that file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import type { PipelineWorkerData } from './bench-cluster.ts';
import { type CpuProfile, startCpuProfile } from './cpu-profile.ts';

/** What `bad-rollout` starts its worker with: the bench pipeline's data, and the node LIST reuse threshold. */
export interface BadRolloutWorkerData extends PipelineWorkerData {
  readonly nodeListReuseMinNodes?: number;
}

const data = workerData as BadRolloutWorkerData;
const pipeline = await startLocalPipeline({
  kubeconfigPath: data.kubeconfigPath,
  managedKind: 'everynode.dev/v1',
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
let profile: CpuProfile | undefined;
parentPort?.on('message', async (message) => {
  if (message === 'profile') profile = await startCpuProfile(data.cpuProfile);
  if (message !== 'stop') return;
  await profile?.stop();
  await pipeline.stop();
  parentPort?.postMessage({ type: 'stopped', counters: pipeline.counters.snapshot() });
});
