/**
 * What a pod CREATE costs the simulated API server's thread, with the scheduler's bind and the
 * watch fan-out that follow it: `npx tsx test/bench/sim-create.ts [--nodes 2000] [--daemonsets 10]
 * [--batches 200] [--warmup 30] [--watchers 1] [--cpu-profile FILE]`.
 * The cluster runs on the main thread with `--daemonsets` DaemonSets already on every node (their
 * pods bound; containers start only after an hour, so a new pod's one kubelet write during the run
 * is the status posted as soon as it is bound). A client in a
 * worker thread opens the relay's label-selector pod watch over HTTP, then runs batches of one
 * daemon pod per DaemonSet for a new node, sent concurrently over keep-alive connections as the
 * node step sends them, each batch waiting until its pods' binds reached the watch. Printed: p50 /
 * p99 of the per-create latency, and per create the main thread's CPU time (Linux) and busy time
 * (event-loop utilization, which also counts time the thread waited for a core).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, type Worker, workerData } from 'node:worker_threads';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { controllerRevisionFor, revisionHashOf } from '../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import { startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet } from '../support/builders.ts';
import { nextMessage, populateDaemonSet, quantile, startWorker } from './bench-cluster.ts';
import { startCpuProfile } from './cpu-profile.ts';

/** What the client worker is started with. */
interface CreateTask {
  readonly url: string;
  readonly watchers: number;
  readonly daemonSets: readonly { ds: V1DaemonSet; hash: string }[];
  /** Node names, one per batch, warm-up batches first. */
  readonly nodes: readonly string[];
  readonly warmup: number;
}

type ClientMessage =
  | { type: 'watching' }
  | { type: 'measuring' }
  | { type: 'done'; latencies: number[]; failures: number };

/** Sends one request; resolves with its status once the answer has been read. */
function send(agent: Agent, url: string, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    const req = request(`${url}${path}`, { method: 'POST', agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a pod watch like the relay's; calls `onEvent` with each event's type and pod. */
function openWatch(url: string, onEvent: (type: string, pod: V1Pod) => void): Promise<void> {
  const path = '/api/v1/pods?watch=true&labelSelector=everynode.dev%2Fdaemonset-uid&allowWatchBookmarks=true';
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}&resourceVersion=1`, (res) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: V1Pod };
          buffered = buffered.slice(nl + 1);
          onEvent(event.type, event.object);
        }
      });
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
}

/** The client: watches, then runs the batches; posts the latencies. */
async function runClient(task: Readonly<CreateTask>): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('sim-create: the client must run in a worker');
  const unbound = new Map<string, number>();
  let wake: (() => void) | undefined;
  const onEvent = (type: string, pod: V1Pod) => {
    const name = pod.metadata?.name ?? '';
    if (type !== 'MODIFIED' || !pod.spec?.nodeName || !unbound.has(name)) return;
    const left = (unbound.get(name) ?? 1) - 1;
    if (left > 0) unbound.set(name, left);
    else unbound.delete(name);
    if (unbound.size === 0) wake?.();
  };
  for (let w = 0; w < task.watchers; w++) await openWatch(task.url, onEvent);
  port.postMessage({ type: 'watching' } satisfies ClientMessage);
  const agent = new Agent({ keepAlive: true, maxSockets: task.daemonSets.length });
  const latencies: number[] = [];
  let failures = 0;
  for (const [batch, node] of task.nodes.entries()) {
    if (batch === task.warmup) port.postMessage({ type: 'measuring' } satisfies ClientMessage);
    const pods = task.daemonSets.map(({ ds, hash }) => daemonPodFor(ds, node, hash));
    for (const pod of pods) unbound.set(pod.metadata?.name ?? '', task.watchers);
    const bound = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const sent = await Promise.all(
      pods.map(async (pod) => {
        const started = performance.now();
        const status = await send(agent, task.url, '/api/v1/namespaces/default/pods', JSON.stringify(pod));
        return { ms: performance.now() - started, status };
      }),
    );
    await bound;
    if (batch < task.warmup) continue;
    for (const { ms, status } of sent) {
      latencies.push(ms);
      if (status !== 201) failures += 1;
    }
  }
  agent.destroy();
  port.postMessage({ type: 'done', latencies, failures } satisfies ClientMessage);
}

/**
 * CPU time of this process's main thread in ms (Linux: its utime + stime in /proc, in ticks of
 * 10 ms at the usual USER_HZ of 100), or undefined elsewhere. Unlike event-loop utilization, it
 * leaves out time the thread waited for a core, which a shared machine makes vary from run to run.
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** What the main thread measured while the client ran its batches. */
interface Measured {
  readonly latencies: readonly number[];
  readonly failures: number;
  /** Main-thread CPU ms (NaN off Linux) and busy ms (event-loop utilization) over the batches. */
  readonly cpuMs: number;
  readonly busy: ReturnType<typeof performance.eventLoopUtilization>;
}

/** Waits for the client's measured batches, profiling them into `cpuProfile` when given. */
async function measure(worker: Worker, cpuProfile: string | undefined): Promise<Measured> {
  await nextMessage(worker, 'measuring');
  const profile = await startCpuProfile(cpuProfile);
  const before = performance.eventLoopUtilization();
  const cpuBefore = mainThreadCpuMs() ?? Number.NaN;
  const done = await nextMessage<Extract<ClientMessage, { type: 'done' }>>(worker, 'done');
  const busy = performance.eventLoopUtilization(before);
  const cpuMs = (mainThreadCpuMs() ?? Number.NaN) - cpuBefore;
  await profile.stop();
  return { latencies: done.latencies, failures: done.failures, cpuMs, busy };
}

/** The cluster side: starts and fills it, runs the client, prints the figures. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '2000' },
      daemonsets: { type: 'string', default: '10' },
      batches: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '30' },
      watchers: { type: 'string', default: '1' },
      'cpu-profile': { type: 'string' },
    },
  });
  const [nodes, dsCount, batches, warmup] = ['nodes', 'daemonsets', 'batches', 'warmup'].map((k) =>
    Number(values[k as keyof typeof values]),
  ) as [number, number, number, number];
  console.log(`sim-create: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
  const sim = await startSimCluster({ nodes, timing: { podStartSeconds: 3600 }, watchWindow: 200_000 });
  const daemonSets = Array.from({ length: dsCount }, (_, i) => {
    const ds = populateDaemonSet(sim, aDaemonSet(`agent-${i}`, { namespace: 'default' }));
    return { ds, hash: revisionHashOf(controllerRevisionFor(ds, 1)) };
  });
  const joining = Array.from({ length: warmup + batches }, (_, i) => `join-${String(i).padStart(5, '0')}`);
  for (const name of joining) sim.nodes.add(name);
  console.log(`  ${nodes} nodes, ${nodes * dsCount} pods; ${batches} batches of ${dsCount} creates`);
  const task: CreateTask = {
    url: sim.url,
    watchers: Number(values.watchers),
    daemonSets,
    nodes: joining,
    warmup,
  };
  const worker = startWorker(new URL(import.meta.url), task);
  await nextMessage(worker, 'watching');
  const { latencies, failures, cpuMs, busy } = await measure(worker, values['cpu-profile']);
  const per = (ms: number) => (ms / latencies.length).toFixed(3);
  console.log(
    `  per create: latency p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p99 ${quantile(latencies, 0.99).toFixed(2)} ms; ` +
      `sim thread CPU ${per(cpuMs)} ms, busy ${per(busy.active)} ms (utilization ${(busy.utilization * 100).toFixed(0)}%)` +
      (failures > 0 ? `; ${failures} FAILED` : ''),
  );
  await worker.terminate();
  await sim.stop();
}

if (isMainThread) await main();
else await runClient(workerData as CreateTask);
