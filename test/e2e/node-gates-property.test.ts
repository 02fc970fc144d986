/**
 * Node readiness gates under random joins (with the gate taints), gating pod failures, deletions and
 * readiness flips, gating images that never become ready, nodes going NotReady, labels, other
 * controllers' taints, and duplicated and reordered work (node-gates-changes.ts), through the whole
 * local pipeline:
 * - each settle ends with no node released while a gating pod that should run there is not
 *   available, every node whose gating pods are all available released, BootstrapOnly releases
 *   marked and never undone, other controllers' taints kept (`gateProblems`);
 * - no gate write along the way contradicts what the write before it saw: no restore (nor a False
 *   condition) while the pods the lift saw are all still available, no lift on a pod that was never
 *   available since the gate closed (`judgeGateWrites`).
 */
import type { V1Node } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../lib/sim/faults.ts';
import { watchGates } from '../support/gate-timeline.ts';
import {
  apply,
  imageFor,
  liveGatingPods,
  type Run,
  type Scenario,
  scenarioArb,
  setImage,
} from '../support/node-gates-changes.ts';
import {
  BOOTSTRAP_KEY,
  CONTINUOUS_KEY,
  GATING,
  gateProblems,
  gatingDaemonSet,
  gatingPods,
  isAvailable,
  judgeGateWrites,
  shouldRun,
} from '../support/node-gates-model.ts';
import { startPipelineWorld } from '../support/pipeline-harness.ts';

/** What a settle waits to stop changing: the nodes' taints, readiness and markers, the gating pods. */
function fingerprint(run: Run): string {
  const nodes = (run.world.sim.store.list('nodes') as unknown as V1Node[]).map((n) => [
    n.metadata?.name,
    n.spec?.taints?.map((t) => `${t.key}:${t.effect}`),
    n.status?.conditions?.find((c) => c.type === 'Ready')?.status,
    n.metadata?.annotations?.['everynode.dev/node-readiness-released'],
  ]);
  const pods = liveGatingPods(run).map((p) => [p.metadata?.uid, p.status?.phase, isAvailable(p)]);
  return JSON.stringify([nodes, pods]);
}

/**
 * Resolves once the cluster has not changed for 600 ms and no work was waiting or in flight on the
 * work and ingress queues meanwhile (delayed requeues aside: they change nothing until they run).
 */
async function settle(run: Run): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = fingerprint(run);
  let since = Date.now();
  for (;;) {
    if (Date.now() > deadline) throw new Error('the cluster did not settle within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const d = await run.world.pipeline.queueDepths();
    const now = fingerprint(run);
    if (now !== last || d.ingress + d.work > 0) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= 600) return;
  }
}

/**
 * Settles and checks the settled gates against the model; a violation is confirmed by a second
 * settle (a trigger still on its way).
 */
async function settledProblems(run: Run): Promise<string[]> {
  await settle(run);
  const now = () => gateProblems(run.world.sim, run.timeline, run.bootstrapped);
  if (now().length === 0) return [];
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await settle(run);
  return now();
}

/** Every gating DaemonSet that should run on a node has an available pod there. */
function converged(run: Run): boolean {
  const { sim } = run.world;
  return sim.nodes.names().every((name) => {
    const node = sim.nodes.get(name) as V1Node;
    return GATING.every((g) => !shouldRun(g, node) || gatingPods(sim, g.name, name).some(isAvailable));
  });
}

/** How many nodes each settled check saw gated, per key, for PROPERTY_DEBUG. */
function gatedCounts(run: Run): string {
  const nodes = run.world.sim.store.list('nodes') as unknown as V1Node[];
  const count = (key: string) =>
    nodes.filter((n) => (n.spec?.taints ?? []).some((t) => t.key === key && t.effect === 'NoSchedule'))
      .length;
  return `${nodes.length} nodes, ${count(CONTINUOUS_KEY)} gated Continuous, ${count(BOOTSTRAP_KEY)} gated BootstrapOnly`;
}

/**
 * One property run: the DaemonSets (some with an image that never becomes ready), the joins, the
 * changes with their checks, then every node Ready and every image good: every node released.
 * Resolves with the gate writes that contradicted the pods as they were (`judgeGateWrites`).
 */
async function propertyRun(scenario: Scenario, seed: number): Promise<string[]> {
  const started = Date.now();
  const world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', nodes: 1, timeScale: 0.02 });
  const timeline = watchGates(world.sim);
  const writes = judgeGateWrites(world.sim);
  const run: Run = {
    world,
    timeline,
    random: mulberry32(seed),
    bootstrapped: new Set(),
    joined: 0,
    others: 0,
    replays: 0,
    injected: 0,
    images: 0,
  };
  const debug = (what: string) => {
    if (process.env.PROPERTY_DEBUG) console.log(`${Date.now() - started} ms ${what}: ${gatedCounts(run)}`);
  };
  try {
    for (const spec of GATING) {
      const image = imageFor(!scenario.unready.includes(spec.name), 0);
      world.sim.store.create('everynode.dev/daemonsets', gatingDaemonSet(spec, image));
    }
    for (const join of scenario.joins) await apply(run, join);
    expect(await settledProblems(run)).toEqual([]);
    debug(`${scenario.joins.length} joined, unready ${scenario.unready}`);
    for (const [index, [change, check]] of scenario.changes.entries()) {
      await apply(run, change);
      if (!check && index < scenario.changes.length - 1) continue;
      expect(await settledProblems(run), JSON.stringify(change)).toEqual([]);
      debug(JSON.stringify(change));
    }
    for (const name of world.sim.nodes.names()) world.sim.nodes.setReady(name, true);
    for (const spec of GATING) setImage(run, spec.name, true);
    await world.until('every gating DaemonSet runs where it should', () => converged(run), 30_000);
    expect(await settledProblems(run)).toEqual([]);
    debug('healed');
    const d = await world.pipeline.queueDepths();
    expect(d.workDlq + d.ingressDlq).toBe(0);
    return writes.wrong().map((w) => `${w} (scenario ${JSON.stringify(scenario)})`);
  } finally {
    writes.stop();
    timeline.stop();
    await world.stop();
  }
}

describe('node readiness gates under random joins, pod failures and message chaos', () => {
  /** The gate writes of every run that contradicted the pods as they were, for the second test. */
  const wrongWrites: string[] = [];
  let runs = 0;

  it('never leave a node released while a gating pod that should run there is not available, and release every node whose gating pods are', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.integer(), async (scenario, seed) => {
        wrongWrites.push(...(await propertyRun(scenario, seed)));
        runs++;
      }),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 5),
        endOnFailure: true,
        ...(process.env.PROPERTY_SEED
          ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH ?? '0' }
          : {}),
      },
    );
  }, 120_000);

  it('never lift, restore or report a gate against the pods as they were when it wrote', () => {
    expect(runs).toBeGreaterThan(0);
    expect(wrongWrites).toEqual([]);
  });
});
