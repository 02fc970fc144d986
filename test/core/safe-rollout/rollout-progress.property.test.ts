/**
 * The safe rollout's promises (docs/design.md, 30. Rollouts that stop themselves), checked on a
 * simulated cluster (rollout-progress-model.ts) where new pods never become ready, crash-loop or
 * become ready late, nodes turn NotReady after their pod started, and DaemonSet steps are
 * duplicated, replayed on an older observation, run from an older record or lose their write:
 * - a halt bounds the blast radius: once a halt is stored, no node gets the halted revision but
 *   those already on it or in flight (their old pod deleted) when it was;
 * - a halt is sticky: every later decision from a halted record of the revision is halted, unless
 *   a retry names that halt (and was not taken before) or the template changes;
 * - steps never complete early and, without failures, never overshoot: the nodes on the new
 *   revision stay within the step that holds, and domains are finished in order.
 * The oracles here count nodes, availability and step targets on their own, from the simulated
 * state, not through the code under test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ROLLOUT_RESUME_ANNOTATION,
  ROLLOUT_RETRY_ANNOTATION,
} from '../../../lib/core/safe-rollout/rollout-record.ts';
import type { RolloutStep } from '../../../lib/core/safe-rollout/rollout-spec.ts';
import {
  type Fate,
  type HealthSettings,
  type Observation,
  type Replay,
  readinessAt,
  type Scenario,
  Sim,
  type StepRun,
  type Tick,
  type UserAction,
} from './rollout-progress-model.ts';

// ---------------------------------------------------------------------------------------------
// Arbitraries

const healthyFate: fc.Arbitrary<Fate> = fc.record({ readyAfter: fc.integer({ min: 0, max: 20 }) });
const fateArb: fc.Arbitrary<Fate> = fc.oneof(
  { weight: 3, arbitrary: healthyFate },
  { weight: 1, arbitrary: fc.constant({ readyAfter: null }) },
  { weight: 1, arbitrary: fc.record({ readyAfter: fc.integer({ min: 25, max: 400 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      readyAfter: fc.option(fc.integer({ min: 5, max: 200 }), { nil: null }),
      restartEvery: fc.integer({ min: 2, max: 40 }),
    }),
  },
);

const percent = (min: number, max: number) => fc.integer({ min, max }).map((p) => `${p}%`);
const stepArb: fc.Arbitrary<RolloutStep> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ nodes: fc.oneof(fc.integer({ min: 1, max: 4 }), percent(1, 100)) }) },
  { weight: 1, arbitrary: fc.record({ pause: fc.record({ seconds: fc.integer({ min: 1, max: 90 }) }) }) },
  { weight: 1, arbitrary: fc.constant({ pause: {} }) },
);
/** Health rules; `minPodReadySeconds` above the slowest healthy pod keeps a healthy rollout from failing. */
const healthArb = (minPodReadySeconds: number): fc.Arbitrary<HealthSettings> =>
  fc.record({
    podReadySeconds: fc.integer({ min: minPodReadySeconds, max: 150 }),
    maxRestarts: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    nodeReadySeconds: fc.option(fc.integer({ min: 5, max: 150 }), { nil: undefined }),
    maxFailedNodes: fc.oneof(fc.integer({ min: 0, max: 2 }), percent(0, 60)),
    onFailure: fc.constantFrom('Pause' as const, 'Revert' as const),
  });

/** Mostly nothing, sometimes `arb`. */
const sometimes = <T>(arb: fc.Arbitrary<T>, weight: number) =>
  fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const dtArb = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 999 }),
  fc.integer({ min: 1, max: 45 }).map((s) => s * 1000),
);

function tickArb(replays: readonly Replay[], users: readonly UserAction['kind'][], nodeFailures: boolean) {
  return fc.record({
    dtMs: dtArb,
    replay: fc.constantFrom(...replays),
    back: fc.integer({ min: 1, max: 4 }),
    grace: fc.integer({ min: 0, max: 2 }),
    node: nodeFailures
      ? sometimes(fc.record({ index: fc.nat(), ready: fc.boolean() }), 6)
      : fc.constant(undefined),
    user: sometimes(
      fc.record({ kind: fc.constantFrom(...users), n: fc.nat() }).map((u) => u as UserAction),
      3,
    ),
  }) satisfies fc.Arbitrary<Tick>;
}

interface Mode {
  readonly fates: fc.Arbitrary<Fate>;
  readonly health: fc.Arbitrary<HealthSettings>;
  readonly replays: readonly Replay[];
  readonly users: readonly UserAction['kind'][];
  readonly nodeFailures: boolean;
  readonly ticks: number;
}

const FAULTS: Mode = {
  fates: fateArb,
  health: healthArb(10),
  replays: ['none', 'none', 'none', 'duplicate', 'lostWrite', 'staleViews', 'staleRecord'],
  users: [
    'retry',
    'retry',
    'retryStale',
    'retryStale',
    'resume',
    'resume',
    'resume',
    'resumeAny',
    'template',
  ],
  nodeFailures: true,
  ticks: 70,
};
const HEALTHY: Mode = {
  fates: healthyFate,
  health: healthArb(30),
  replays: ['none', 'none', 'none', 'duplicate', 'lostWrite'],
  users: ['resume', 'resume', 'resume', 'resumeAny', 'template'],
  nodeFailures: false,
  ticks: 60,
};

function scenarioArb(mode: Mode): fc.Arbitrary<Scenario> {
  return fc
    .record({
      zones: fc.array(fc.constantFrom('a', 'b', 'c', ''), { minLength: 2, maxLength: 8 }),
      topology: fc.boolean(),
      steps: fc.option(fc.array(stepArb, { minLength: 1, maxLength: 4 }), { nil: undefined }),
      health: fc.option(mode.health, { nil: undefined, freq: 4 }),
      maxUnavailable: fc.oneof(fc.integer({ min: 1, max: 3 }), percent(10, 100)),
      maxSurge: fc.constantFrom(0, 0, 0, 1),
      minReadySeconds: fc.constantFrom(0, 0, 5),
      startComplete: fc.boolean(),
      fates: fc.array(mode.fates, { minLength: 1, maxLength: 12 }),
      ticks: fc.array(tickArb(mode.replays, mode.users, mode.nodeFailures), {
        minLength: 5,
        maxLength: mode.ticks,
      }),
    })
    .filter((s) => s.topology || s.steps !== undefined || s.health !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Oracles, on the simulated state

interface Seen {
  readonly name: string;
  readonly zone: string;
  /** Counted by the rollout: it should run the daemon (Ready), or keeps a pod (NotReady). */
  readonly counted: boolean;
  /** Runs a live pod of the revision, or has no live pod (it gets one of the revision). */
  readonly updated: boolean;
  /** Runs an available pod of the revision. */
  readonly available: boolean;
}

function seen(observation: Observation, hash: string, now: number, minReadySeconds: number): Seen[] {
  return observation.nodes.map((node) => {
    const pods = observation.pods.filter((p) => p.node === node.name);
    const live = pods.filter((p) => p.goneAtTick === undefined);
    const available = live.some((p) => {
      if (p.hash !== hash) return false;
      const { ready, since } = readinessAt(p, node, observation.at);
      return ready && (minReadySeconds === 0 || since + minReadySeconds * 1000 < now);
    });
    return {
      name: node.name,
      zone: node.zone,
      counted: node.ready || pods.length > 0,
      updated: live.length === 0 || live.some((p) => p.hash === hash),
      available,
    };
  });
}

/** The most nodes on the new revision while a `nodes` step holds, over `total` nodes. */
function stepTarget(step: RolloutStep, total: number): number | undefined {
  if (!('nodes' in step)) return undefined;
  const value = step.nodes;
  const scaled =
    typeof value === 'number' ? value : Math.ceil((Number.parseInt(String(value), 10) * total) / 100);
  return Math.min(total, scaled);
}

/** Domains in rollout order: label values in string order, nodes without the label last. */
const domainBefore = (a: string, b: string) => a !== b && b !== '' && (a === '' ? false : a < b);

const describeRun = (run: StepRun) =>
  JSON.stringify({
    replay: run.replay,
    now: run.now.toISOString(),
    hash: run.hash,
    stored: run.stored,
    record: run.progress.record,
    allowance: run.progress.allowance,
    revertTo: run.progress.revertTo,
    moved: run.moved,
    retry: run.ds.metadata?.annotations?.[ROLLOUT_RETRY_ANNOTATION],
  });

// ---------------------------------------------------------------------------------------------
// Checks

/** A halt is sticky: a decision from a halted record of the revision stays halted, unless a fresh retry names it. */
function checkSticky(run: StepRun): void {
  const { stored, hash, progress } = run;
  if (stored?.revision !== hash || stored.haltedAt === undefined) return;
  const retry = run.ds.metadata?.annotations?.[ROLLOUT_RETRY_ANNOTATION];
  // The record keeps the retry it took: the same request is not taken twice.
  const fresh = retry === `${hash}/${stored.haltedAt}` && stored.retried !== stored.haltedAt;
  if (fresh) {
    expect(progress.record?.retried, describeRun(run)).toBe(stored.haltedAt);
    return;
  }
  expect(progress.record?.haltedAt, describeRun(run)).toBe(stored.haltedAt);
  expect(['Halted', 'Reverting'], describeRun(run)).toContain(progress.record?.phase);
  expect(
    progress.events.map((e) => e.reason),
    describeRun(run),
  ).not.toContain('RolloutRetried');
  if (progress.revertTo === undefined) {
    expect(progress.allowance?.halted, describeRun(run)).toBe(true);
    expect(run.moved, describeRun(run)).toEqual([]);
  }
}

/**
 * No step completes early: a `nodes` step once that many run an available pod or are failed nodes
 * the record tolerates, a pause once it ended or was resumed.
 */
function checkStepsNotEarly(run: StepRun, scenario: Scenario): void {
  const steps = scenario.steps;
  const { stored, hash, progress } = run;
  const record = progress.record;
  if (steps === undefined || record?.step === undefined) return;
  const retried = progress.events.some((e) => e.reason === 'RolloutRetried');
  const same = stored?.revision === hash && !retried;
  const from = same ? (stored?.step ?? 0) : 0;
  if (same) expect(record.step, describeRun(run)).toBeGreaterThanOrEqual(from);
  const now = run.now.getTime();
  const nodes = seen(run.observation, hash, now, scenario.minReadySeconds).filter((n) => n.counted);
  const failed = new Set((record.failedNodes ?? []).map((f) => f.node));
  const available = nodes.filter((n) => n.available || failed.has(n.name)).length;
  const resume = run.ds.metadata?.annotations?.[ROLLOUT_RESUME_ANNOTATION];
  for (let s = from; s < record.step; s++) {
    const step = steps[s];
    if (step === undefined) break;
    const target = stepTarget(step, nodes.length);
    if (target !== undefined) {
      expect(available, `step ${s} complete early: ${describeRun(run)}`).toBeGreaterThanOrEqual(target);
      continue;
    }
    if (!('pause' in step) || resume === `${hash}/${s}`) continue;
    const startedAt = s === from && same && stored?.stepStartedAt ? Date.parse(stored.stepStartedAt) : now;
    const seconds = step.pause.seconds;
    expect(
      seconds !== undefined && startedAt + seconds * 1000 <= now,
      `pause ${s} ended early: ${describeRun(run)}`,
    ).toBe(true);
  }
}

/** The plan moves no more nodes than the allowance lets it, and only nodes it names. */
function checkWithinAllowance(run: StepRun): void {
  const allowance = run.progress.allowance;
  if (allowance === undefined || run.replay === 'staleViews') return;
  if (allowance.halted) expect(run.moved, describeRun(run)).toEqual([]);
  expect(run.moved.length, describeRun(run)).toBeLessThanOrEqual(allowance.maxNewNodes);
  for (const node of run.moved) expect(allowance.order, describeRun(run)).toContain(node);
}

/**
 * Within the step that holds: the nodes on the revision (running a pod of it, or with no live pod)
 * once the plan is applied are at most its target, or as many as before when they were more already
 * (nodes in flight when the template changed, or a retry starting the steps again); `strict` (a
 * single rollout without failures): at most its target. A node moves only once every node of the
 * domains before its own runs an available pod of the revision or is failed.
 */
function checkNoOvershoot(run: StepRun, scenario: Scenario, strict: boolean): void {
  const record = run.progress.record;
  if (record === undefined || run.progress.revertTo !== undefined || run.replay === 'staleViews') return;
  const now = run.now.getTime();
  const nodes = seen(run.observation, run.hash, now, scenario.minReadySeconds).filter((n) => n.counted);
  const before = nodes.filter((n) => n.updated).length;
  const after = before + run.moved.length;
  const steps = scenario.steps ?? [];
  const step = record.step === undefined ? undefined : steps[record.step];
  if (step !== undefined) {
    const target = stepTarget(step, nodes.length);
    if (target === undefined) expect(run.moved, `a pause moved nodes: ${describeRun(run)}`).toEqual([]);
    else {
      expect(after, `overshoot: ${describeRun(run)}`).toBeLessThanOrEqual(Math.max(target, before));
      if (strict) expect(after, `overshoot: ${describeRun(run)}`).toBeLessThanOrEqual(target);
    }
  }
  if (!scenario.topology) return;
  const failed = new Set(record.failedNodes?.map((f) => f.node));
  for (const name of run.moved) {
    const zone = nodes.find((n) => n.name === name)?.zone ?? '';
    const unfinished = nodes.filter((n) => domainBefore(n.zone, zone) && !n.available && !failed.has(n.name));
    expect(
      unfinished.map((n) => n.name),
      `${name} (zone '${zone}') moved before earlier domains finished: ${describeRun(run)}`,
    ).toEqual([]);
  }
}

interface HaltWatch {
  readonly revision: string;
  readonly haltedAt: string;
  /** Nodes on the revision or in flight (no live pod) when the halt was stored. */
  readonly frozen: ReadonlySet<string>;
}

/** Runs `scenario`, checking the halt's blast radius, stickiness, steps and allowance at every step. */
function runWithFaults(scenario: Scenario): void {
  let watch: HaltWatch | undefined;
  const sim = new Sim(scenario);
  /** The halt `w` is stored and no retry names it: no node may get its revision but those frozen. */
  const holds = (w: HaltWatch | undefined): w is HaltWatch => {
    const record = sim.record;
    if (w === undefined || sim.hash !== w.revision || record?.revision !== w.revision) return false;
    if (record.haltedAt !== w.haltedAt) return false;
    const retried = sim.annotation(ROLLOUT_RETRY_ANNOTATION) === `${w.revision}/${w.haltedAt}`;
    return !retried || record.retried === w.haltedAt;
  };
  sim.run({
    step: (run) => {
      checkSticky(run);
      checkStepsNotEarly(run, scenario);
      checkWithinAllowance(run);
      checkNoOvershoot(run, scenario, false);
      const record = sim.record;
      if (record?.haltedAt === undefined || record.revision !== sim.hash) watch = undefined;
      else if (!holds(watch)) {
        const frozen = sim.nodes
          .map((n) => n.name)
          .filter(
            (n) => sim.live(n).length === 0 || sim.pods.some((p) => p.node === n && p.hash === sim.hash),
          );
        watch = { revision: record.revision, haltedAt: record.haltedAt, frozen: new Set(frozen) };
      }
    },
    created: (pod) => {
      if (!holds(watch) || pod.hash !== watch.revision) return;
      expect(
        watch.frozen.has(pod.node),
        `${pod.node} got ${pod.hash} after its rollout halted at ${watch.haltedAt} (in flight or on it then: ${[...watch.frozen]})`,
      ).toBe(true);
    },
  });
}

function runHealthy(scenario: Scenario): void {
  const sim = new Sim(scenario);
  sim.run({
    step: (run) => {
      expect(run.progress.record?.haltedAt, describeRun(run)).toBeUndefined();
      checkStepsNotEarly(run, scenario);
      checkWithinAllowance(run);
      checkNoOvershoot(run, scenario, sim.hashIndex === 1);
    },
  });
}

const NUM_RUNS = Number(process.env.ROLLOUT_PROPERTY_RUNS ?? 500);
const SEED = process.env.ROLLOUT_PROPERTY_SEED;
const options = { numRuns: NUM_RUNS, ...(SEED ? { seed: Number(SEED) } : {}) };

describe('safe rollouts under failures, replays and lost writes (properties)', () => {
  it('bound the blast radius of a halt and keep it until a retry names it or the template changes', () => {
    fc.assert(fc.property(scenarioArb(FAULTS), runWithFaults), options);
  });

  it('never complete a step early, nor move more nodes than the step that holds, nor a later domain first', () => {
    fc.assert(fc.property(scenarioArb(HEALTHY), runHealthy), options);
  });
});
