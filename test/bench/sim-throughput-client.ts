/**
 * The load generator of test/bench/sim-throughput.ts, run in a worker thread so clients and the
 * API server do not share one event loop: `concurrency` clients over one keep-alive agent send
 * requests of one scenario back to back for `durationMs`, then report the count and latencies.
 */
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/** What one run measures. */
export interface ClientTask {
  readonly url: string;
  readonly scenario: 'get' | 'list-by-node' | 'create';
  readonly concurrency: number;
  readonly durationMs: number;
  /** Pods pod-0… and nodes node-00001… that exist, for GET and LIST paths. */
  readonly pods: number;
  readonly nodes: number;
}

/** What one run measured. */
export interface ClientResult {
  readonly requests: number;
  readonly failures: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const nodeName = (i: number, nodes: number) => `node-${String((i % nodes) + 1).padStart(5, '0')}`;

/** The method, path and body of request number `i` of `task`. */
function requestFor(task: Readonly<ClientTask>, i: number, worker: number): [string, string, string?] {
  const spread = (i * 7919 + worker * 104729) % task.pods;
  if (task.scenario === 'get') return ['GET', `/api/v1/namespaces/default/pods/pod-${spread}`];
  if (task.scenario === 'list-by-node')
    return ['GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${nodeName(spread, task.nodes)}`];
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `bench-${worker}-${i}`, namespace: 'default', labels: { app: 'bench' } },
    spec: { nodeName: nodeName(spread, task.nodes), containers: [{ name: 'main', image: 'busybox' }] },
  };
  return ['POST', '/api/v1/namespaces/default/pods', JSON.stringify(pod)];
}

/** Sends one request; resolves with its status once the whole answer has been read. */
function send(agent: Agent, url: string, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = body
      ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }
      : {};
    const req = request(`${url}${path}`, { method, agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `task`: every client sends its next request as soon as the previous answer is in. */
export async function runClients(task: Readonly<ClientTask>): Promise<ClientResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: task.concurrency });
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + task.durationMs;
  const client = async (worker: number) => {
    for (let i = 0; performance.now() < deadline; i += 1) {
      const [method, path, body] = requestFor(task, i, worker);
      const sent = performance.now();
      const status = await send(agent, task.url, method, path, body);
      latencies.push(performance.now() - sent);
      if (status >= 300) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: task.concurrency }, (_, w) => client(w)));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    failures,
    seconds: (performance.now() - started) / 1000,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

if (parentPort && workerData) {
  const port = parentPort;
  runClients(workerData as ClientTask).then(
    (result) => port.postMessage(result),
    (error: unknown) => port.postMessage({ error: String(error) }),
  );
}
