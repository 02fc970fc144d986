import { afterAll, describe, expect, it } from 'vitest';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';

const NODES = 10_000;
const PODS = 100_000;
const APPS = 10;
const nodeName = (i: number) => `node-${String((i % NODES) + 1).padStart(5, '0')}`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Prints the time since `started` and the memory in use; `perSecond` items turn into a rate. */
function report(label: string, started: number, perSecond?: { count: number; unit: string }): void {
  const elapsed = performance.now() - started;
  const { rss, heapUsed } = process.memoryUsage();
  const rate = perSecond ? ` (${((perSecond.count / elapsed) * 1000).toFixed(0)} ${perSecond.unit}/s)` : '';
  console.log(`[scale] ${label}: ${elapsed.toFixed(0)} ms${rate}, heap ${mb(heapUsed)}, rss ${mb(rss)}`);
}

/** Median of `runs` timings of `f`, in ms. */
function medianMs(runs: number, f: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? 0;
}

/** Requests per second of `total` GETs of `path(i)`, `concurrency` at a time (fetch keeps connections alive). */
async function throughput(
  url: string,
  total: number,
  concurrency: number,
  path: (i: number) => string,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const response = await fetch(`${url}${path(i)}`);
      if (response.status !== 200) throw new Error(`GET ${path(i)} answered ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - started) / 1000);
}

describe('scale: 10,000 nodes and 100,000 pods in one process', () => {
  let cluster: SimCluster | undefined;
  afterAll(() => cluster?.stop());

  it('creates them, runs every pod, and lists pods by node and by label from the indexes', {
    timeout: 120_000,
  }, async () => {
    let started = performance.now();
    cluster = await startSimCluster({ nodes: NODES, timing: { podStartSeconds: 0, podReadySeconds: 0 } });
    const store = cluster.store;
    report(`started with ${NODES} nodes`, started);

    let running = 0;
    store.subscribe((e) => {
      const phase = (o: KubeObject | undefined) => (o?.status as { phase?: string } | undefined)?.phase;
      if (e.key === 'pods' && phase(e.object) === 'Running' && phase(e.oldObject) !== 'Running') running += 1;
    });
    started = performance.now();
    for (let i = 0; i < PODS; i++) {
      store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: `app-${i % APPS}` } },
        spec: { nodeName: nodeName(i), containers: [{ name: 'main', image: 'busybox' }] },
      });
    }
    report(`created ${PODS} pods through the store`, started, { count: PODS, unit: 'creates' });

    started = performance.now();
    while (running < PODS) await new Promise((resolve) => setTimeout(resolve, 100));
    report(`kubelets ran all ${PODS} pods`, started, { count: PODS, unit: 'pods' });

    const byNode = store.view('pods', { fieldSelector: `spec.nodeName=${nodeName(4321)}` });
    const byLabel = store.view('pods', { labelSelector: 'app=app-3' });
    expect(byNode).toHaveLength(PODS / NODES);
    expect(byLabel).toHaveLength(PODS / APPS);
    const nodeMs = medianMs(101, () =>
      store.view('pods', { fieldSelector: `spec.nodeName=${nodeName(777)}` }),
    );
    const labelMs = medianMs(11, () => store.view('pods', { labelSelector: 'app=app-7' }));
    console.log(
      `[scale] list pods by node (10 of ${PODS}): median ${nodeMs.toFixed(3)} ms; by label (10,000): median ${labelMs.toFixed(1)} ms`,
    );
    // From an index: a node's pods cost far less than one pass over 100,000 pods would.
    expect(nodeMs).toBeLessThan(5);
    expect(labelMs).toBeLessThan(1000);

    const url = cluster.url;
    const listByNode = await throughput(
      url,
      300,
      8,
      (i) => `/api/v1/pods?fieldSelector=spec.nodeName%3D${nodeName(i * 7)}`,
    );
    const getPod = await throughput(url, 2000, 8, (i) => `/api/v1/namespaces/default/pods/pod-${i * 13}`);
    console.log(
      `[scale] HTTP (8 concurrent): list pods by node ${listByNode.toFixed(0)} req/s; get pod ${getPod.toFixed(0)} req/s`,
    );
    const page = (await (await fetch(`${url}/api/v1/pods?labelSelector=app%3Dapp-1&limit=500`)).json()) as {
      items: unknown[];
      metadata: { continue?: string };
    };
    expect(page.items).toHaveLength(500);
    expect(page.metadata.continue).toBeTruthy();
    report('done', performance.now());
  });
});
