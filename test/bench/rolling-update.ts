/**
 * `npm run bench -- rolling-update [--nodes 5000] [--max-unavailable 250] [--pod-ready-seconds 10]
 * [--in-place [--gated]] [--cpu-profile FILE] [--sim-cpu-profile FILE]`:
 * a new image rolled over N running pods through the whole local pipeline, the reconciler allowed
 * 100 requests/s. Goals: never more than maxUnavailable nodes without an available pod,
 * and done within 1.10 x its floor: the larger of (N / maxUnavailable waves x the pod-ready delay,
 * the pod-ready delay being the simulated time from a pod's binding to its readiness) and (the N
 * deletes and N creates it needs / the request budget); both terms are printed. Also prints, without goals, the
 * reconciler's largest LIST of each resource and how often it listed it, and the peak heap of the
 * pipeline's thread (relay, router and reconcile together). Every 10 s it prints the progress, the
 * reconciler's requests per second and how busy the pipeline's thread was over those 10 s;
 * `--cpu-profile FILE` writes a CPU profile of that thread; `--sim-cpu-profile FILE` one of the main
 * thread, the simulated cluster's, over the in-place image rollout.
 *
 * `--in-place`: after that recreate rollout, the same cluster rolls a second new image in place
 * (`everynode.dev/in-place: IfPossible`: one patch per node, the kubelet restarts the container)
 * and then a resources-only change (one resize per node, nothing restarted), each printed beside
 * the recreate: writes per node and the floor they imply, time against the floor, and the seconds
 * each node went without an available pod (goal: in place p50 at most half the recreate's).
 * `--gated` then rolls a mixed change (image and an env var: recreated, and the new pods carry the
 * in-place readiness gate) and an image change in place on those gated pods (the gate closed, the
 * patch, the gate opened: three writes per node).
 */
import { parseArgs } from 'node:util';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { IN_PLACE_ANNOTATION } from '../../lib/core/in-place/in-place-setting.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../support/builders.ts';
import {
  figure,
  isAvailablePod,
  LIMIT_QPS,
  type PipelineWorkerData,
  populateDaemonSet,
  quantile,
  reconcileRequests,
  requestBreakdown,
  startBenchCluster,
  waitUntil,
} from './bench-cluster.ts';
import { startCpuProfile } from './cpu-profile.ts';
import { PIPELINE_THREAD, printReconcilerFootprint } from './reconciler-footprint.ts';
import { trackRolloutPhases } from './rollout-phases.ts';
import { printStatusExactness, STATUS_EXACT_WITHIN_MS } from './status-recount.ts';
import { watchUnavailable } from './unavailable-watch.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    'max-unavailable': { type: 'string', default: '250' },
    'pod-ready-seconds': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'client-qps': { type: 'string', default: '100' },
    'in-place': { type: 'boolean', default: false },
    /** With --in-place: then a mixed change (recreated, the new pods gated) and an image change in place on them. */
    gated: { type: 'boolean', default: false },
    /** The pipeline's log level (SILENT, ERROR, WARN, INFO, DEBUG), logged to stderr. */
    'log-level': { type: 'string', default: 'SILENT' },
    'cpu-profile': { type: 'string' },
    /** A CPU profile of the main thread (the simulated cluster) over the in-place image rollout. */
    'sim-cpu-profile': { type: 'string' },
  },
});
const nodes = Number(values.nodes);
const maxUnavailable = Number(values['max-unavailable']);
const readySeconds = Number(values['pod-ready-seconds']);
const inPlace = values['in-place'];
const gated = values.gated;
/** Simulated seconds the kubelet takes to apply a resize (its PodResizeInProgress). */
const RESIZE_SECONDS = 1;
const MEMORY = { before: '64Mi', after: '96Mi' };

/**
 * Of a new pod's start, the seconds its sandbox takes (network namespace, CNI, IP), which a
 * container restarted in place does not wait for again.
 */
const SANDBOX_SECONDS = 1;
const START_SECONDS = 2;
if (readySeconds < START_SECONDS)
  throw new RangeError(`--pod-ready-seconds must be at least ${START_SECONDS}`);
const cluster = await startBenchCluster(nodes, {
  podStartSeconds: START_SECONDS,
  podSandboxSeconds: SANDBOX_SECONDS,
  podReadySeconds: readySeconds - START_SECONDS,
  podResizeSeconds: RESIZE_SECONDS,
});
const stored = () => cluster.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
/** The stored pods themselves, read-only: a deep copy of 20,000 pods every poll took most of this thread. */
const pods = () => cluster.sim.store.view('pods') as unknown as readonly V1Pod[];
/** Each pod's container restarts, by uid: a restart is counted only on a pod that was there before. */
const restarts = () =>
  new Map(
    pods().map((p) => [
      p.metadata?.uid ?? '',
      (p.status?.containerStatuses ?? []).reduce((sum, c) => sum + c.restartCount, 0),
    ]),
  );
const restartedSince = (before: ReadonlyMap<string, number>) =>
  [...restarts()].reduce((sum, [uid, n]) => sum + (before.has(uid) ? n - (before.get(uid) ?? 0) : 0), 0);

/** One rollout to measure: how the DaemonSet changes, when a pod is done, and the floor it implies. */
interface Variant {
  readonly name: string;
  readonly change: (ds: V1DaemonSet) => void;
  readonly isNew: (pod: Readonly<V1Pod>) => boolean;
  /** Writes per node the change needs at least. */
  readonly writesPerNode: number;
  /** Simulated seconds from a node's first write to its pod serving again. */
  readonly waveSeconds: number;
  /** Every node's container restarts (in place), or none does. */
  readonly restarts: boolean;
}

interface Measured {
  readonly variant: Variant;
  readonly seconds: number;
  readonly floor: number;
  readonly worst: number;
  readonly writes: number;
  readonly gaps: number[];
  readonly restarted: number;
}

/**
 * How an image change goes: recreated (Never, or a mixed change); in place on pods created before
 * in place was asked for (no readiness gate: one patch); in place on pods created since, which
 * carry the `everynode.dev/InPlaceUpdateReady` gate (closed, patched, opened again: three writes).
 */
type ImageRollout = 'recreate' | 'in place' | 'in place, gated';

const image = (tag: string, how: ImageRollout, env?: string): Variant => ({
  name: `${how} (image${env ? ' and env, pods gated after' : ''})`,
  change: (ds) => {
    const container = ds.spec?.template.spec?.containers[0];
    if (container) container.image = `busybox:${tag}`;
    if (container && env) container.env = [{ name: env, value: '1' }];
  },
  isNew: (pod) => pod.spec?.containers[0]?.image === `busybox:${tag}`,
  // A recreate under IfPossible creates gated pods: their create is followed by the gate's opening.
  writesPerNode: how === 'in place' ? 1 : how === 'in place, gated' ? 3 : env ? 3 : 2,
  waveSeconds: how === 'recreate' ? readySeconds : readySeconds - SANDBOX_SECONDS,
  restarts: how !== 'recreate',
});

const resize: Variant = {
  name: 'in place (memory)',
  change: (ds) => {
    const container = ds.spec?.template.spec?.containers[0];
    if (container) container.resources = { requests: { cpu: '10m', memory: MEMORY.after } };
  },
  isNew: (pod) =>
    pod.spec?.containers[0]?.resources?.requests?.memory === MEMORY.after &&
    pod.status?.containerStatuses?.[0]?.resources?.requests?.memory === MEMORY.after,
  // The resize, then the revision label once the kubelet applied it.
  writesPerNode: 2,
  waveSeconds: RESIZE_SECONDS,
  restarts: false,
};

async function roll(variant: Variant): Promise<Measured> {
  const unavailable = watchUnavailable(cluster.sim, nodes);
  const phases = trackRolloutPhases(cluster.sim, variant.isNew);
  cluster.sim.counters.reset();
  cluster.pipelineHeap.reset();
  const restartsBefore = restarts();
  const profile = await startCpuProfile(
    variant.name === 'in place (image)' ? values['sim-cpu-profile'] : undefined,
  );
  const started = Date.now();
  const ds = stored();
  variant.change(ds);
  cluster.sim.store.update('apps/daemonsets', ds as unknown as KubeObject);
  const updated = () => pods().filter((p) => isAvailablePod(p) && variant.isNew(p)).length;
  let lastReport = started;
  let lastRequests = 0;
  cluster.pipelineBusy();
  console.log(`\n${variant.name}:`);
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
  await profile.stop();
  const heap = cluster.pipelineHeap.read();
  unavailable.stop();
  phases.stop();
  const waves = Math.ceil(nodes / maxUnavailable);
  const wavesFloor = waves * variant.waveSeconds;
  const writesFloor = (variant.writesPerNode * nodes) / LIMIT_QPS;
  const floor = Math.max(wavesFloor, writesFloor);
  console.log(
    `floor ${floor.toFixed(0)} s: the larger of ${waves} waves x ${variant.waveSeconds} s = ${wavesFloor.toFixed(0)} s and ${variant.writesPerNode * nodes} writes / ${LIMIT_QPS} requests/s = ${writesFloor.toFixed(0)} s`,
  );
  if (!variant.restarts && variant !== resize) {
    console.log(`where a node's time went:\n${phases.report()}`);
  }
  await printStatusExactness(cluster.sim, 'default', 'agent', STATUS_EXACT_WITHIN_MS);
  const requests = reconcileRequests(cluster.sim);
  console.log(
    `requests ${requests} (${(requests / nodes).toFixed(2)} per node): ${requestBreakdown(cluster.sim)}`,
  );
  printReconcilerFootprint({ sim: cluster.sim, seconds, heap, ...PIPELINE_THREAD });
  const writes = ['create', 'update', 'patch', 'delete'].reduce(
    (sum, verb) => sum + reconcileRequests(cluster.sim, { verb, resource: 'pods' }),
    0,
  );
  return {
    variant,
    seconds,
    floor,
    worst: unavailable.worst(),
    writes,
    gaps: unavailable.gapSeconds(),
    restarted: restartedSince(restartsBefore),
  };
}

function report(m: Measured, recreate: Measured | undefined): void {
  console.log(`\n${m.variant.name}:`);
  figure(
    'most nodes unavailable at once',
    String(m.worst),
    `<= ${maxUnavailable}`,
    m.worst <= maxUnavailable,
  );
  const goal = 1.1 * m.floor;
  figure('time to finish (s)', m.seconds.toFixed(1), `<= ${goal.toFixed(0)}`, m.seconds <= goal);
  figure('time / floor', (m.seconds / m.floor).toFixed(3), '<= 1.10', m.seconds <= goal);
  const perNode = m.writes / nodes;
  figure(
    'pod writes per node',
    perNode.toFixed(2),
    `${m.variant.writesPerNode}`,
    perNode <= m.variant.writesPerNode * 1.05,
  );
  const p50 = m.gaps.length === 0 ? 0 : quantile(m.gaps, 0.5);
  const gapText = `${p50.toFixed(2)} (p90 ${m.gaps.length === 0 ? '0.00' : quantile(m.gaps, 0.9).toFixed(2)}, ${m.gaps.length} nodes)`;
  if (recreate && (m.variant.restarts || m.variant === resize)) {
    const limit = 0.5 * quantile(recreate.gaps, 0.5);
    figure("seconds a node's pod was unavailable, p50", gapText, `<= ${limit.toFixed(2)}`, p50 <= limit);
  } else console.log(`${"seconds a node's pod was unavailable, p50".padEnd(44)} ${gapText}`);
  const restartGoal = m.variant.restarts ? nodes : 0;
  figure('containers restarted', String(m.restarted), String(restartGoal), m.restarted === restartGoal);
}

try {
  const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } };
  const container = {
    name: 'main',
    image: 'busybox:1.36',
    resources: { requests: { cpu: '10m', memory: MEMORY.before } },
  };
  populateDaemonSet(
    cluster.sim,
    aDaemonSet('agent', {
      podSpec: { terminationGracePeriodSeconds: 0, containers: [container] },
      updateStrategy: strategy,
    }),
  );
  const available = () => pods().filter(isAvailablePod).length;
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
  const recreate = await roll(image('1.37', 'recreate'));
  const measured = [recreate];
  if (inPlace) {
    const ds = stored();
    ds.metadata = {
      ...ds.metadata,
      annotations: { ...ds.metadata?.annotations, [IN_PLACE_ANNOTATION]: 'IfPossible' },
    };
    cluster.sim.store.update('apps/daemonsets', ds as unknown as KubeObject);
    measured.push(await roll(image('1.38', 'in place')), await roll(resize));
    if (gated)
      measured.push(
        await roll(image('1.39', 'recreate', 'GATED')),
        await roll(image('1.40', 'in place, gated')),
      );
  }
  console.log(
    `\nrolling-update: ${nodes} nodes, maxUnavailable ${maxUnavailable} (${Math.ceil(nodes / maxUnavailable)} waves), pod-ready delay ${readySeconds} s (of which the sandbox ${SANDBOX_SECONDS} s, which an in-place restart skips), reconciler limited to ${LIMIT_QPS} requests/s`,
  );
  for (const m of measured) report(m, inPlace ? recreate : undefined);
  console.log(`pipeline counters: ${JSON.stringify(await cluster.stopPipeline())}`);
} finally {
  await cluster.stop();
}
