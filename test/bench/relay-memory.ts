/**
 * `npm run bench -- relay-memory [--nodes 5000] [--daemonsets 10] [--churn-seconds 20] [--relist]
 * [--heap-snapshot <file>]`: the memory the relay needs over a cluster of N nodes running D
 * DaemonSets (apps/v1), to size its Lambda function (`relayMemoryMb`, default 1216 MB). The
 * simulated cluster runs in this process; the relay in a child process of its own
 * (test/bench/relay-memory-child.ts), as on AWS, reporting `process.memoryUsage()` and its CPU time
 * every 500 ms. The child runs an esbuild bundle made as the Lambda's is (one ESM file, minified,
 * no source maps), so its RSS is the bundled relay's, not that of a TypeScript loader; it does not
 * get this process's NODE_OPTIONS (at 20,000 nodes this process needs a larger heap for the
 * cluster: `NODE_OPTIONS=--max-old-space-size=12000`). Phases: the relay's first LIST and watch
 * start, until its published count has not moved for 3 s; then churn (nodes added and removed,
 * pods' readiness flipped) so its watches deliver events — with `--relist`, every watch ended with
 * 410 Gone midway, so the relay relists everything while it holds what it knew, and the run waits
 * for those relists after the churn; then a forced GC in the child and one last sample (and the heap snapshot, if asked).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { build } from 'esbuild';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../support/builders.ts';
import { isAvailablePod, populateDaemonSet, startBenchCluster, waitUntil } from './bench-cluster.ts';
import type { RelayMemorySample } from './relay-memory-child.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    daemonsets: { type: 'string', default: '10' },
    'churn-seconds': { type: 'string', default: '20' },
    /** Where the child writes a heap snapshot after the forced GC (what the relay holds), if anywhere. */
    'heap-snapshot': { type: 'string' },
    /** Midway through the churn, end every watch with 410 Gone: the relay relists every resource. */
    relist: { type: 'boolean', default: false },
  },
});
const [nodes, daemonSets] = [Number(values.nodes), Number(values.daemonsets)];
const churnMs = Number(values['churn-seconds']) * 1000;
/** Churn per tick of 100 ms: one node added, one original node removed, pods' readiness flipped. */
const FLIPS_PER_TICK = 5;
const MB = 1024 * 1024;
/** The stack's default relay memory (infra/app.ts, context `relayMemoryMb`). */
const DEFAULT_RELAY_MB = 1216;

/** The Lambda memory size for a peak RSS: 1.5 × headroom, up in 64 MB steps, at least 128 MB. */
function lambdaSizeFor(peakRssMb: number): number {
  return Math.max(128, Math.ceil((peakRssMb * 1.5) / 64) * 64);
}

/**
 * Bundles the child into `outDir` with the options infra/constructs/pipeline-functions.ts gives the
 * relay's Lambda (ESM, minified, no source maps, the `createRequire` banner, the whatwg-url shim),
 * except that the kubeconfig support is kept: the child reaches the bench cluster by its kubeconfig.
 * Nothing is external. Returns the bundle's path.
 */
async function bundleRelayChild(outDir: string): Promise<string> {
  const outfile = join(outDir, 'child.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./relay-memory-child.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    sourcemap: false,
    mainFields: ['module', 'main'],
    outfile,
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    alias: { 'whatwg-url': fileURLToPath(new URL('../../infra/bundling/whatwg-url.mjs', import.meta.url)) },
    define: { 'process.env.EVERYNODE_EKS_ONLY': '"false"' },
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * Starts the relay's child process from its bundle, with this process's environment less
 * NODE_OPTIONS; `samples` gets every report it posts.
 */
function startRelayChild(bundle: string, kubeconfigPath: string, samples: RelayMemorySample[]): ChildProcess {
  // NODE_OPTIONS (a larger heap for this process, which hosts the cluster) is not the relay's.
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--expose-gc', bundle, kubeconfigPath], {
    detached: true,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (message: RelayMemorySample) => {
    if (message.type === 'sample') samples.push(message);
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`relay child exited with code ${code}\n`);
  });
  return child;
}

/** Flips the Ready condition of a pod (a status write, as its kubelet would make). */
function flipReadiness(pod: Readonly<KubeObject>, sim: Awaited<ReturnType<typeof startBenchCluster>>['sim']) {
  const { namespace, name } = pod.metadata;
  sim.store.mutate(
    'pods',
    namespace,
    name ?? '',
    (obj) => {
      const status = (obj.status ?? {}) as { conditions?: V1PodCondition[] };
      status.conditions = (status.conditions ?? []).map((c) =>
        c.type === 'Ready' || c.type === 'ContainersReady'
          ? { ...c, status: c.status === 'True' ? 'False' : 'True', lastTransitionTime: new Date() }
          : c,
      );
      obj.status = status;
    },
    { subresource: 'status' },
  );
}

// Pod GC deletes a removed node's pods after 1 s (40 s by default), so churn deletes pods too.
const bundleDir = await mkdtemp(join(tmpdir(), 'relay-memory-'));
const bundle = await bundleRelayChild(bundleDir);
const bundleBytes = (await stat(bundle)).size;
const cluster = await startBenchCluster(nodes, { podGcQuarantineSeconds: 1 });
const { sim } = cluster;
const samples: RelayMemorySample[] = [];
let child: ChildProcess | undefined;
const last = () => samples[samples.length - 1];
/** Throws once the child has exited, with its peak RSS so far: nothing more will come. */
const alive = () => {
  if (child === undefined || (child.exitCode === null && child.signalCode === null)) return;
  const peakMb = Math.max(0, ...samples.map((s) => s.memory.rss)) / (1024 * 1024);
  throw new Error(
    `relay-memory: the relay child exited (${child.exitCode ?? child.signalCode}); peak RSS ${peakMb.toFixed(1)} MB`,
  );
};
try {
  console.log(`populating ${daemonSets} DaemonSets on ${nodes} nodes (${nodes * daemonSets} pods)…`);
  const populating = Date.now();
  for (let i = 0; i < daemonSets; i++)
    populateDaemonSet(sim, aDaemonSet(`agent-${i}`, { namespace: 'default' }));
  await waitUntil(
    'every pod ready',
    () => (sim.store.view('pods') as unknown as V1Pod[]).filter(isAvailablePod).length === nodes * daemonSets,
    10 * 60_000,
    500,
  );
  const listed = { nodes: sim.store.view('nodes').length, pods: sim.store.view('pods').length };
  const populateSeconds = (Date.now() - populating) / 1000;

  // Phase 1: the first LIST and the watches' start, until the published count rests for 3 s.
  const listStarted = Date.now();
  child = startRelayChild(bundle, cluster.kubeconfigPath, samples);
  let restingSince = Date.now();
  let lastPublished = -1;
  await waitUntil(
    'the relay to start and its published count to rest for 3 s',
    () => {
      alive();
      const sample = last();
      if (sample === undefined || !sample.started) return false;
      if (sample.published !== lastPublished) [lastPublished, restingSince] = [sample.published, Date.now()];
      return Date.now() - restingSince >= 3_000;
    },
    120_000,
    100,
  );
  const startSeconds = (Date.now() - listStarted) / 1000;
  const afterList = last();
  const largestList = sim.counters.largestList({ verb: 'list', userAgent: 'everynode/relay' });

  // Phase 2: churn.
  const originals = sim.nodes.names();
  let added = 0;
  let removed = 0;
  let flips = 0;
  const churnUntil = Date.now() + churnMs;
  let relistAt = values.relist ? Date.now() + churnMs / 2 : undefined;
  while (Date.now() < churnUntil) {
    if (relistAt !== undefined && Date.now() >= relistAt) {
      // Its four resources' watches (nodes, pods, DaemonSets, revisions) reconnect into 410 Gone.
      relistAt = undefined;
      for (const key of ['nodes', 'pods', 'apps/daemonsets', 'apps/controllerrevisions'])
        sim.faults.forceWatchGone(1, key);
      sim.faults.dropWatches();
    }
    sim.nodes.add(`churn-${String(added++).padStart(5, '0')}`);
    const victim = originals.pop();
    if (victim !== undefined && sim.nodes.get(victim)) {
      sim.nodes.remove(victim);
      removed++;
    }
    const pods = sim.store.view('pods');
    for (let i = 0; i < FLIPS_PER_TICK && pods.length > 0; i++) {
      const pod = pods[Math.floor(Math.random() * pods.length)];
      if (pod !== undefined) flipReadiness(pod, sim);
      flips++;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (values.relist) {
    await waitUntil(
      'the relists of nodes, pods and DaemonSets',
      () => {
        alive();
        return (last()?.stats.relists ?? 0) >= 3;
      },
      10 * 60_000,
      200,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const beforeGc = samples.length;
  const heapSnapshot = values['heap-snapshot'];
  child.send({
    type: 'gc',
    ...(heapSnapshot === undefined ? {} : { heapSnapshot: resolvePath(heapSnapshot) }),
  });
  await waitUntil(
    'the sample after GC',
    () => {
      alive();
      return samples.slice(beforeGc).some((s) => s.phase === 'afterGc');
    },
    heapSnapshot === undefined ? 30_000 : 300_000,
  );
  const afterGc = samples.find((s) => s.phase === 'afterGc');
  const baseline = samples.find((s) => s.phase === 'baseline');
  if (afterGc === undefined || baseline === undefined || afterList === undefined)
    throw new Error('relay-memory: the child did not report its baseline and after-GC samples');

  const held = { nodes: sim.store.view('nodes').length, pods: sim.store.view('pods').length };
  const peak = (of: (m: NodeJS.MemoryUsage) => number) => Math.max(...samples.map((s) => of(s.memory)));
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  const peakRssMb = peak((m) => m.rss) / MB;
  const perObject = (afterGc.memory.heapUsed - baseline.memory.heapUsed) / (held.nodes + held.pods);
  const suggested = lambdaSizeFor(peakRssMb);
  console.log(
    `\nrelay-memory: relay (apps/v1) in a child process over ${listed.nodes} nodes, ${listed.pods} pods, ${daemonSets} DaemonSets`,
  );
  console.log(`child: esbuild bundle of the relay like the Lambda's, ${mb(bundleBytes)} (node --expose-gc)`);
  console.log(`cluster populated in ${populateSeconds.toFixed(0)} s`);
  console.log(
    `start (first LIST + watches, published count at rest 3 s): ${startSeconds.toFixed(1)} s, ${afterList.published} triggers published, ${(afterList.cpuMicros / 1e6).toFixed(1)} s of the relay's CPU`,
  );
  console.log(
    `relay's largest LIST answer: ${largestList?.items ?? 0} items, ${mb(largestList?.bytes ?? 0)} (${largestList?.lists ?? 0} LIST requests, ${largestList?.totalItems ?? 0} items in all)`,
  );
  console.log(
    `churn ${churnMs / 1000} s: ${added} nodes added, ${removed} removed, ${listed.pods - held.pods} pods deleted by pod GC, ${flips} pod readiness flips`,
  );
  console.log(
    `relay stats at the end: forwarded ${afterGc.stats.forwarded}, coalesced ${afterGc.stats.coalesced}, dropped ${afterGc.stats.dropped}, relists ${afterGc.stats.relists}; published ${afterGc.published}`,
  );
  console.log(`samples: ${samples.length} (every 500 ms)`);
  console.log(
    `child at start (before the relay, after GC): rss ${mb(baseline.memory.rss)}, heapUsed ${mb(baseline.memory.heapUsed)}`,
  );
  console.log(`peak RSS                  ${mb(peak((m) => m.rss))}`);
  console.log(
    `  of which above start    ${mb(peak((m) => m.rss) - baseline.memory.rss)}   (what the relay and the cluster's size add)`,
  );
  console.log(
    `peak heapUsed             ${mb(peak((m) => m.heapUsed))}   (peak heapTotal ${mb(peak((m) => m.heapTotal))})`,
  );
  console.log(
    `peak external             ${mb(peak((m) => m.external))}   (arrayBuffers ${mb(peak((m) => m.arrayBuffers))})`,
  );
  console.log(
    `RSS after GC              ${mb(afterGc.memory.rss)}   (heapUsed ${mb(afterGc.memory.heapUsed)})`,
  );
  console.log(
    `held per node+pod         ${perObject.toFixed(0)} bytes   (heap after GC − heap at start, over ${held.nodes} nodes + ${held.pods} pods at the end)`,
  );
  console.log(
    `suggested Lambda memory   ${suggested} MB   (peak RSS × 1.5, up to 64 MB steps, >= 128) — the stack's default ${DEFAULT_RELAY_MB} MB`,
  );
  console.log(
    "note: Node's RSS includes the runtime's own baseline of ~40–60 MB (V8, code, the loaded modules), whatever the cluster's size;\n" +
      "      the child runs an esbuild bundle of the relay like the Lambda's (one minified ESM file, no TypeScript loader).",
  );
} finally {
  if (child?.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await cluster.stop();
  await rm(bundleDir, { recursive: true, force: true });
}
