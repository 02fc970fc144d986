/**
 * Memory and HTTP request throughput of the simulated cluster at 10,000 nodes and 100,000 running
 * pods: `npx tsx test/bench/sim-throughput.ts [--nodes N] [--pods N] [--seconds S] [--clients C]`.
 * The cluster (API server, scheduler, kubelets) runs on the main thread; the clients run in a
 * worker thread over one keep-alive agent, so both get their own event loop (and core).
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import type { ClientResult, ClientTask } from './sim-throughput-client.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    pods: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '8' },
  },
});
const NODES = Number(values.nodes);
const PODS = Number(values.pods);
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const nodeName = (i: number) => `node-${String((i % NODES) + 1).padStart(5, '0')}`;

/** Heap and RSS after a full garbage collection. */
function memory(): string {
  collectGarbage();
  const { heapUsed, rss } = process.memoryUsage();
  return `heap ${mb(heapUsed)}, rss ${mb(rss)}`;
}

/** Creates `PODS` pods bound round-robin to the nodes and waits until the kubelets run them all. */
async function fillCluster(cluster: SimCluster): Promise<void> {
  let running = 0;
  const phase = (o: KubeObject | undefined) => (o?.status as { phase?: string } | undefined)?.phase;
  const stop = cluster.store.subscribe((e) => {
    if (e.key === 'pods' && phase(e.object) === 'Running' && phase(e.oldObject) !== 'Running') running += 1;
  });
  for (let i = 0; i < PODS; i += 1) {
    cluster.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: `app-${i % 10}` } },
      spec: { nodeName: nodeName(i), containers: [{ name: 'main', image: 'busybox' }] },
    });
  }
  while (running < PODS) await new Promise((resolve) => setTimeout(resolve, 100));
  stop();
}

/** Runs one scenario in a worker thread; resolves with what the clients measured. */
function measure(url: string, scenario: ClientTask['scenario']): Promise<ClientResult> {
  const task: ClientTask = {
    url,
    scenario,
    concurrency: CLIENTS,
    durationMs: SECONDS * 1000,
    pods: PODS,
    nodes: NODES,
  };
  return new Promise((resolve, reject) => {
    // Workers do not inherit tsx's loader (Node 20): the worker registers it, then loads the client.
    const client = new URL('./sim-throughput-client.ts', import.meta.url).href;
    const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(client)}); });`;
    const worker = new Worker(bootstrap, { eval: true, workerData: task });
    worker.once('message', (m: ClientResult | { error: string }) =>
      'error' in m ? reject(new Error(m.error)) : resolve(m),
    );
    worker.once('error', reject);
  });
}

/** One result line: requests per second and latencies. */
function line(label: string, r: Readonly<ClientResult>): string {
  const rate = (r.requests / r.seconds).toFixed(0);
  const failed = r.failures > 0 ? `, ${r.failures} failed` : '';
  return `  ${label.padEnd(38)} ${rate.padStart(6)} req/s  p50 ${r.p50Ms.toFixed(1)} ms  p99 ${r.p99Ms.toFixed(1)} ms${failed}`;
}

async function main(): Promise<void> {
  console.log(`sim-throughput: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
  let started = performance.now();
  const cluster = await startSimCluster({ nodes: NODES, timing: { podStartSeconds: 0, podReadySeconds: 0 } });
  console.log(
    `  ${NODES} nodes started in ${((performance.now() - started) / 1000).toFixed(1)} s; ${memory()}`,
  );
  started = performance.now();
  await fillCluster(cluster);
  console.log(
    `  ${PODS} pods created and running in ${((performance.now() - started) / 1000).toFixed(1)} s; ${memory()}`,
  );
  console.log(`HTTP, ${CLIENTS} concurrent keep-alive clients in a worker thread, ${SECONDS} s each:`);
  const scenarios: [string, ClientTask['scenario']][] = [
    ['GET one pod', 'get'],
    [`LIST pods of one node (${Math.round(PODS / NODES)} pods)`, 'list-by-node'],
    ['CREATE a pod (bound, kubelet runs it)', 'create'],
  ];
  for (const [label, scenario] of scenarios) console.log(line(label, await measure(cluster.url, scenario)));
  console.log(`  after the run: ${memory()}; ${cluster.counters.total()} requests counted by the server`);
  await cluster.stop();
}

await main();
