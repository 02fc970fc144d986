/**
 * `npm run bench -- relay-chain [--handovers 8] [--period 24] [--seed 1] [--crash]`: the relay's
 * hand-over on AWS (docs/design.md, 25. The relay's hand-over on AWS) measured on the real code
 * over real time: a chain of real relay runs (lib/relay/run/run.ts) watching a simulated cluster
 * over HTTP while nodes join every 250 ms, sharing one checkpoint record and the local trigger bus.
 * Prints how long nobody watched, how long two runs watched, how soon each joining node's trigger
 * was accepted, the API requests per hand-over and whether the checkpoint ever moved back, beside
 * the goals: nothing unwatched, no gap over 2 s, at most 60 s an hour watched twice.
 * relay-handover.ts is the timing model of the same design over a simulated day.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEventBus } from '../../lib/queue/event-bus-local.ts';
import { Journal } from '../../lib/queue/journal.ts';
import { startLocalQueues } from '../../lib/queue/local-queues.ts';
import { FileCheckpointStore } from '../../lib/relay/run/checkpoint.ts';
import { RELAY_SUCCESSOR_LEAD_MS } from '../../lib/relay/run/handover.ts';
import { mulberry32 } from '../../lib/sim/faults.ts';
import { startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { type ChainMeasurements, relayChainReport } from './relay-chain-report.ts';
import { RelayChain, runOfUserAgent } from './relay-chain-runs.ts';
import { RecordedStore, TimedBus } from './relay-chain-world.ts';

/** How often a node joins the cluster while the chain runs. */
const CHURN_EVERY_MS = 250;
/** How long after the last run started nodes keep joining (it watches 6 s). */
const CHURN_AFTER_LAST_START_MS = 3_000;
/** Nodes the cluster starts with. */
const INITIAL_NODES = 50;

const { values } = parseArgs({
  options: {
    handovers: { type: 'string', default: '8' },
    period: { type: 'string', default: '24' },
    seed: { type: 'string', default: '1' },
    crash: { type: 'boolean', default: false },
  },
});

function integerOption(name: 'handovers' | 'period' | 'seed', min: number): number {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be an integer ≥ ${min}, not ${values[name]}`);
  return value;
}

const handovers = integerOption('handovers', values.crash ? 2 : 1);
// The successor is due P − 20 s after a run starts: a shorter period would invoke it at once.
const periodSeconds = integerOption('period', RELAY_SUCCESSOR_LEAD_MS / 1000 + 1);
const seed = integerOption('seed', 0);
const crashInvocation = values.crash ? Math.floor(handovers / 2) : undefined;

const dir = mkdtempSync(join(tmpdir(), 'everynode-bench-relay-chain-'));
const sim = await startSimCluster({ nodes: INITIAL_NODES, seed });
const queues = await startLocalQueues();
try {
  const store = new RecordedStore(new FileCheckpointStore(join(dir, 'checkpoint.json')));
  const bus = new TimedBus(
    new LocalEventBus({
      sqs: queues.sqs,
      ingressUrl: queues.urls.ingress,
      journal: new Journal(join(dir, 'j')),
    }),
  );
  const chain = new RelayChain({
    kubeconfig: sim.kubeconfig,
    bus,
    store,
    periodSeconds,
    handovers,
    random: mulberry32(seed),
    ...(crashInvocation === undefined ? {} : { crashInvocation }),
  });
  const wallStart = Date.now();
  chain.start();

  // Nodes join once the first run watches (before, they are in its LIST) until 3 s after the last
  // run started, 3 s before its deadline, so every joining node has a run watching.
  await store.firstWritten;
  const created = new Map<string, number>();
  const churn = setInterval(() => {
    const name = `joining-${String(created.size + 1).padStart(5, '0')}`;
    sim.nodes.add(name);
    created.set(name, Date.now());
  }, CHURN_EVERY_MS);
  const churnStops = chain.lastRunStarted
    .then((at) => new Promise((resolve) => setTimeout(resolve, at + CHURN_AFTER_LAST_START_MS - Date.now())))
    .then(() => clearInterval(churn));
  // A chain that stalls (every run failing) ends the bench rather than hanging it.
  const patienceMs = (handovers + 2) * (periodSeconds + 45) * 1000 + 180_000;
  let patience: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>(
    (resolve) => (patience = setTimeout(() => resolve('stalled'), patienceMs)),
  );
  const ended = await Promise.race([
    Promise.all([chain.ended, churnStops]).then(() => 'ended' as const),
    stalled,
  ]);
  clearTimeout(patience);
  clearInterval(churn);
  await chain.settle();

  const measurements: ChainMeasurements = {
    seed,
    periodSeconds,
    handovers,
    initialNodes: INITIAL_NODES,
    churnEveryMs: CHURN_EVERY_MS,
    stalled: ended === 'stalled',
    wallMs: Date.now() - wallStart,
    reports: chain.reports,
    failed: chain.failed,
    delays: chain.delays,
    ...(chain.crash ? { crash: chain.crash } : {}),
    created,
    accepted: bus.nodeSeenAt,
    written: store.written,
    recordReads: store.loads,
    requests: sim.counters.snapshot().flatMap((entry) => {
      const runId = runOfUserAgent(entry.userAgent);
      return runId === undefined
        ? []
        : [{ runId, request: `${entry.verb} ${entry.resource}`, count: entry.count }];
    }),
  };
  process.stdout.write(`${relayChainReport(measurements).join('\n')}\n`);
} finally {
  await queues.stop();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
