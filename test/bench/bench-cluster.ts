/**
 * What the reconcile benchmarks share: a simulated cluster that allows the reconciler's user agent
 * 100 requests/s (429 beyond, as API Priority and Fairness would), the whole local pipeline
 * (relay → bus → ingress → router → work queue → reconcile) over it, DaemonSets whose pods are
 * already running (made in-process, as if an earlier controller had made them), and figures printed
 * beside their goals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { TransferListItem, Worker } from 'node:worker_threads';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { controllerRevisionFor, revisionHashOf } from '../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { RECONCILE_USER_AGENT } from '../../lib/reconcile/setup/deps-for-config.ts';
import type { SimTiming } from '../../lib/sim/sim-timing.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { creatableDaemonSet } from '../support/builders.ts';
import { HeapPeak } from './heap-peak.ts';
import { startTsxWorker } from './worker-rpc.ts';

/** The reconciler's allowance on the simulated API server. */
export const LIMIT_QPS = 100;

/** What the pipeline worker is started with. */
export interface PipelineWorkerData {
  readonly kubeconfigPath: string;
  readonly stateDir: string;
  readonly clientQps: number;
  readonly reconcileConcurrency: number;
  /** The pipeline's log level (default SILENT); its lines go to stderr. */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Where to write a CPU profile of the pipeline's thread (cpu-profile.ts), if anywhere. */
  readonly cpuProfile?: string;
  /** Profile from the worker's start (default) or from a `profile` message (a measured phase). */
  readonly profileFrom?: 'start' | 'message';
  /** The kind the pipeline manages (default apps/v1). */
  readonly managedKind?: ManagedKind;
  /** The fewest nodes a kept node LIST must hold for the DaemonSet steps to plan on it. */
  readonly nodeListReuseMinNodes?: number;
}

/** A cluster and, once started, the pipeline over it. */
export interface BenchCluster {
  readonly sim: SimCluster;
  readonly kubeconfigPath: string;
  readonly stateDir: string;
  /**
   * Peak memory of the pipeline's worker thread (relay, router and reconcile in one V8 heap),
   * sampled every 250 ms while it runs; reset it when a measured interval starts.
   */
  readonly pipelineHeap: HeapPeak;
  /**
   * Starts the whole local pipeline in a worker thread; `clientQps` is the reconciler's own budget
   * (EVERYNODE_API_QPS), default 100, the server's limit (arrival jitter then brings a few 429s,
   * which the handler turns into delayed requeues). The rest as {@link PipelineWorkerData} says.
   * Resolves when the relay runs.
   */
  startPipeline(options?: Partial<Omit<PipelineWorkerData, 'kubeconfigPath' | 'stateDir'>>): Promise<void>;
  /** Starts the CPU profile of a pipeline started with `profileFrom: 'message'`. */
  profilePipeline(): void;
  /** Stops the pipeline; resolves with its counters (router and reconcile metrics). */
  stopPipeline(): Promise<Record<string, number>>;
  /**
   * The share of time the pipeline's thread was busy (its event loop utilization) since the
   * previous call, or since it started; undefined while it is not running.
   */
  pipelineBusy(): number | undefined;
  stop(): Promise<void>;
}

/** Starts `nodes` simulated nodes with the reconciler limited to {@link LIMIT_QPS}. */
export async function startBenchCluster(
  nodes: number,
  timing: Partial<SimTiming> = {},
): Promise<BenchCluster> {
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-bench-'));
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  const sim = await startSimCluster({ nodes, kubeconfigPath, timing, watchWindow: 200_000 });
  sim.faults.limitPerUserAgent({ match: RECONCILE_USER_AGENT, qps: LIMIT_QPS, burst: LIMIT_QPS });
  let worker: Worker | undefined;
  let busyMark: EventLoopUtilization | undefined;
  const pipelineHeap = new HeapPeak();
  const stopPipeline = async () => {
    if (worker === undefined) return {};
    const stopped = nextMessage<{ type: 'stopped'; counters: Record<string, number> }>(worker, 'stopped');
    worker.postMessage('stop');
    const { counters } = await stopped;
    await worker.terminate();
    worker = undefined;
    return counters;
  };
  return {
    sim,
    kubeconfigPath,
    stateDir,
    pipelineHeap,
    startPipeline: async (options = {}) => {
      const data: PipelineWorkerData = {
        ...options,
        kubeconfigPath,
        stateDir,
        clientQps: options.clientQps ?? 100,
        reconcileConcurrency: options.reconcileConcurrency ?? 8,
      };
      worker = startWorker(new URL('./bench-pipeline-worker.ts', import.meta.url), data, [], pipelineHeap);
      await nextMessage(worker, 'ready');
      busyMark = worker.performance.eventLoopUtilization();
    },
    stopPipeline,
    profilePipeline: () => worker?.postMessage('profile'),
    pipelineBusy: () => {
      if (worker === undefined || busyMark === undefined) return undefined;
      const now = worker.performance.eventLoopUtilization();
      const since = worker.performance.eventLoopUtilization(now, busyMark);
      busyMark = now;
      return since.utilization;
    },
    stop: async () => {
      await stopPipeline();
      await sim.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Creates the DaemonSet in the cluster (in-process, not counted) and returns it as stored. */
export function createDaemonSet(sim: SimCluster, ds: Readonly<V1DaemonSet>): V1DaemonSet {
  return sim.store.create('apps/daemonsets', creatableDaemonSet(ds, 'apps/v1')) as unknown as V1DaemonSet;
}

/**
 * Creates `ds` with its first ControllerRevision and, on every node, the pod everynode would have
 * made, already bound (the kubelets start them): a DaemonSet converged before the benchmark starts.
 */
export function populateDaemonSet(sim: SimCluster, ds: Readonly<V1DaemonSet>): V1DaemonSet {
  const stored = createDaemonSet(sim, ds);
  const revision = controllerRevisionFor(stored, 1);
  sim.store.create('apps/controllerrevisions', JSON.parse(JSON.stringify(revision)) as KubeObject);
  const hash = revisionHashOf(revision);
  for (const node of sim.nodes.names()) {
    const pod: V1Pod = daemonPodFor(stored, node, hash);
    if (pod.spec) pod.spec.nodeName = node;
    sim.store.create('pods', JSON.parse(JSON.stringify(pod)) as KubeObject);
  }
  return stored;
}

/** True when the pod is Ready and not being deleted. */
export function isAvailablePod(pod: Readonly<V1Pod>): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false)
  );
}

/** Resolves when `check` holds (polled every `everyMs`); rejects after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean,
  timeoutMs: number,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`benchmark: timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Requests the reconciler made, optionally of one verb / resource / subresource. */
export function reconcileRequests(
  sim: SimCluster,
  filter: { verb?: string; resource?: string; subresource?: string } = {},
): number {
  return sim.counters.total({ ...filter, userAgent: RECONCILE_USER_AGENT });
}

/** The reconciler's requests by `verb resource[/subresource]`, largest first. */
export function requestBreakdown(sim: SimCluster): string {
  return sim.counters
    .snapshot()
    .filter((entry) => entry.userAgent === RECONCILE_USER_AGENT)
    .sort((a, b) => b.count - a.count)
    .map(
      (entry) =>
        `${entry.verb} ${entry.resource}${entry.subresource ? `/${entry.subresource}` : ''}: ${entry.count}`,
    )
    .join(', ');
}

/** Prints one figure beside its goal, with whether it is met. */
export function figure(name: string, value: string, goal: string, met: boolean): void {
  console.log(`${name.padEnd(44)} ${value.padStart(12)}   goal ${goal.padEnd(14)} ${met ? 'met' : 'MISSED'}`);
}

/** The `q`-quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** The field of a worker's data that carries its {@link HeapPeak}'s buffer. */
const HEAP_PEAK_FIELD = 'heapPeakBuffer';

/**
 * Starts the module `url` in a worker thread with `data` (workers do not inherit tsx's loader on
 * Node 20: the worker registers it first), so the reconciler gets a core of its own rather than
 * sharing the simulated cluster's event loop. With `heapPeak`, the thread samples its heap into it
 * from before the module loads (`heap-peak.ts`; `data` must then be an object: it gets the shared
 * buffer as one more field). Returns the worker.
 */
export function startWorker(
  url: URL,
  data: unknown,
  transferList: readonly TransferListItem[] = [],
  heapPeak?: HeapPeak,
): Worker {
  const sampler = new URL('./heap-peak.ts', import.meta.url).href;
  const sample = heapPeak
    ? `await import(${JSON.stringify(sampler)}).then(async (m) => m.sampleHeapInto((await import('node:worker_threads')).workerData.${HEAP_PEAK_FIELD}));`
    : '';
  const workerData = heapPeak ? { ...(data as object), [HEAP_PEAK_FIELD]: heapPeak.buffer } : data;
  return startTsxWorker(url, workerData, transferList, sample);
}

/** The next message of `worker` of `type`; rejects when the worker fails first. */
export function nextMessage<T extends { type: string }>(worker: Worker, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type !== type) return;
      worker.off('message', onMessage);
      resolve(message);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}
