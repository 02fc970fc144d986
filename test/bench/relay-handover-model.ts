/**
 * A timing model of the relay's hand-over between Lambda runs, for `npm run bench -- relay-handover`
 * and its unit tests: when some run watches the cluster, and when none does. It is not the real
 * relay against the simulated cluster: a run is reduced to start-up, LIST, watching and stopping,
 * and "watching" means its watches are established and the API server is up.
 *
 * - today (the design the chain replaced): the schedule starts a run every P; reserved concurrency
 *   1; each run watches for {@link scheduleWatchMillis} after its LIST and then stops.
 * - chain: the successor chain with a lease, every decision taken by lib/relay/run/handover.ts;
 *   reserved concurrency 2; the schedule, every RELAY_WATCHDOG_SECONDS, is only a watchdog.
 *
 * Both designs run on the simulated Lambda of relay-handover-lambda.ts, with the same seeded
 * streams of random draws. Times are milliseconds of simulated time.
 */
import {
  invocationDecision,
  laterResourceVersions,
  mayTakeLease,
  RELAY_HANDOVER_POLL_MS,
  RELAY_HEARTBEAT_MS,
  RELAY_WATCHDOG_SECONDS,
  type RelayLease,
  type ResourceVersions,
  relayInvocation,
  relayLease,
  relaySuccessorEvent,
  shouldHandOver,
  shouldReinvokeSuccessor,
  successorDueAt,
} from '../../lib/relay/run/handover.ts';
import { RELAY_FLUSH_RESERVE_SECONDS } from '../../lib/relay/run/run.ts';
import { analyseCoverage, type Coverage } from './relay-handover-coverage.ts';
import {
  EventClock,
  type Invocation,
  type LambdaCounts,
  type LambdaModel,
  type RandomStreams,
  randomStreams,
  SimulatedLambda,
  uniform,
} from './relay-handover-lambda.ts';

/** The model's inputs. */
export interface HandoverModel extends Omit<LambdaModel, 'reservedConcurrency'> {
  readonly seed: number;
  readonly hours: number;
  /** P, EVERYNODE_RELAY_RUN_SECONDS. */
  readonly runSeconds: number;
  /** LIST and catch-up before a run's watches are established: uniform in [min, max]. */
  readonly listMinMs: number;
  readonly listMaxMs: number;
  /** Stopping (publishing what is queued, the last checkpoint write): uniform in [min, max]. */
  readonly stopMinMs: number;
  readonly stopMaxMs: number;
  /** How long a watchdog invocation that exits holds its slot. */
  readonly watchdogExitMs: number;
  /** Probability that a run crashes within P seconds of run time (exponential time to crash). */
  readonly crashPerPeriod: number;
  /** The watchdog schedule's period (the chain only). */
  readonly watchdogSeconds: number;
  /** Probability that a run's call invoking its successor fails (the chain only). */
  readonly lostInvokeShare: number;
  /** Extra crashes at these simulated seconds: every run then watching dies. */
  readonly crashesAtSeconds: readonly number[];
  /** An API server outage: every watch fails and every LIST fails in [start, start + minutes). */
  readonly apiOutage?: { readonly startSeconds: number; readonly minutes: number };
}

/** The defaults the bench states in its output. */
export const defaultHandoverModel: HandoverModel = {
  seed: 1,
  hours: 24,
  runSeconds: 300,
  coldStartMedianMs: 1500,
  coldStartP99Ms: 6000,
  warmStartMs: 50,
  idleKeepMs: 600_000,
  recycledShare: 0.05,
  deliveryMaxMs: 1000,
  jitter: 'full',
  listMinMs: 200,
  listMaxMs: 1000,
  stopMinMs: 100,
  stopMaxMs: 500,
  watchdogExitMs: 100,
  crashPerPeriod: 0.01,
  watchdogSeconds: RELAY_WATCHDOG_SECONDS,
  lostInvokeShare: 0.01,
  crashesAtSeconds: [],
};

/** What one design did over the model's hours. */
export interface DesignResult extends Coverage {
  readonly lambda: LambdaCounts;
  /** Invocations that ran the relay (not a watchdog's immediate exit). */
  readonly runsStarted: number;
  readonly crashes: number;
  readonly successorsInvoked: number;
  readonly successorsReinvoked: number;
  /** Successor invocations whose call failed (injected). */
  readonly lostInvokes: number;
  readonly watchdogExits: number;
  /** Checkpoint writes that moved a resourceVersion back (must be 0). */
  readonly checkpointMovedBack: number;
}

/** The function timeout the stack sets for period P (infra/everynode.ts). */
export function relayTimeoutMs(runSeconds: number): number {
  return Math.min(900, runSeconds + 60) * 1000;
}

/** A run as both designs track it. */
interface Run {
  readonly invocation: Invocation;
  readonly startedAt: number;
  readonly crashAt: number;
  watchFrom?: number;
  stopped: boolean;
}

/** The parts both designs share: clock, Lambda, failures, watched intervals. */
class Simulation {
  readonly clock = new EventClock();
  readonly random: RandomStreams;
  readonly lambda: SimulatedLambda;
  readonly watched: [number, number][] = [];
  readonly failures: [number, number][] = [];
  readonly live = new Set<Run>();
  runsStarted = 0;
  crashes = 0;
  readonly end: number;
  private readonly crashRatePerMs: number;

  constructor(
    readonly model: HandoverModel,
    concurrency: number,
    handler: (invocation: Invocation) => void,
  ) {
    this.random = randomStreams(model.seed);
    this.lambda = new SimulatedLambda(
      this.clock,
      { ...model, reservedConcurrency: concurrency },
      this.random,
      handler,
    );
    this.end = model.hours * 3600_000;
    this.crashRatePerMs = -Math.log(1 - model.crashPerPeriod) / (model.runSeconds * 1000);
    for (const seconds of model.crashesAtSeconds) this.clock.at(seconds * 1000, () => this.killWatching());
    const outage = model.apiOutage;
    if (outage) {
      const from = outage.startSeconds * 1000;
      this.failures.push([from, from + outage.minutes * 60_000]);
      this.clock.at(from, () => this.killWatching(false));
    }
  }

  /** A run starting now, with its time to crash drawn. */
  startRun(invocation: Invocation): Run {
    this.runsStarted++;
    const draw = this.random.crash();
    const crashAt =
      this.crashRatePerMs > 0 ? this.clock.now - Math.log(1 - draw) / this.crashRatePerMs : Infinity;
    const run: Run = { invocation, startedAt: this.clock.now, crashAt, stopped: false };
    this.live.add(run);
    if (crashAt < this.end) this.clock.at(crashAt, () => this.fail(run));
    return run;
  }

  listMs(): number {
    return uniform(this.random.list, this.model.listMinMs, this.model.listMaxMs);
  }

  /** Whether the API server is down at some moment of [from, to]. */
  apiDown(from: number, to = from): boolean {
    const outage = this.model.apiOutage;
    if (!outage) return false;
    const start = outage.startSeconds * 1000;
    return from < start + outage.minutes * 60_000 && to >= start;
  }

  /** The run's watches are established now. */
  watching(run: Run): void {
    run.watchFrom = this.clock.now;
  }

  /** The run stops normally now and frees its slot once it has flushed. */
  stop(run: Run): void {
    if (!this.finish(run)) return;
    this.lambda.release(
      run.invocation,
      this.clock.now + uniform(this.random.stop, this.model.stopMinMs, this.model.stopMaxMs),
    );
  }

  /** The run fails now (a function error: Lambda retries its event); `injected` counts it as a crash. */
  fail(run: Run, injected = true): void {
    if (!this.finish(run)) return;
    if (injected) {
      this.crashes++;
      this.failures.push([this.clock.now, this.clock.now]);
    }
    this.lambda.fail(run.invocation);
  }

  private finish(run: Run): boolean {
    if (run.stopped) return false;
    run.stopped = true;
    this.live.delete(run);
    if (run.watchFrom !== undefined) this.watched.push([run.watchFrom, this.clock.now]);
    return true;
  }

  private killWatching(injected = true): void {
    for (const run of [...this.live]) if (run.watchFrom !== undefined || !injected) this.fail(run, injected);
  }

  /** Runs the schedule every `periodMs` (EventBridge delivery included) and the clock to the end. */
  run(periodMs: number, payload: unknown): Coverage {
    const tick = () => {
      if (this.clock.now >= this.end) return;
      this.lambda.send(payload);
      this.clock.at(this.clock.now + periodMs, tick);
    };
    this.clock.at(0, tick);
    this.clock.runUntil(this.end);
    for (const run of this.live)
      if (run.watchFrom !== undefined) this.watched.push([run.watchFrom, this.end]);
    return analyseCoverage(this.watched, this.failures, this.end, relayTimeoutMs(this.model.runSeconds));
  }
}

/** Seconds a run of the schedule design watched past its period, overlapping the next run. */
export const SCHEDULE_OVERLAP_SECONDS = 30;

/**
 * How long a run of the schedule design, started `remainingMillis` before its timeout, watched:
 * the period plus the overlap, cut so that the flush reserve remained.
 */
export function scheduleWatchMillis(runSeconds: number, remainingMillis: number): number {
  const wanted = (runSeconds + SCHEDULE_OVERLAP_SECONDS) * 1000;
  return Math.max(0, Math.min(wanted, remainingMillis - RELAY_FLUSH_RESERVE_SECONDS * 1000));
}

const scheduleEvent = { source: 'aws.events', 'detail-type': 'Scheduled Event' };

/** Today's design: a run every P, reserved concurrency 1, each watching P + overlap after its LIST. */
export function simulateToday(model: HandoverModel): DesignResult {
  const timeoutMs = relayTimeoutMs(model.runSeconds);
  const sim: Simulation = new Simulation(model, 1, (invocation) => {
    const run = sim.startRun(invocation);
    const watchMs = scheduleWatchMillis(model.runSeconds, timeoutMs);
    sim.clock.at(sim.clock.now + sim.listMs(), () => {
      if (run.stopped) return;
      if (sim.apiDown(run.startedAt, sim.clock.now)) return sim.fail(run, false);
      sim.watching(run);
      sim.clock.at(sim.clock.now + watchMs, () => sim.stop(run));
    });
  });
  const coverage = sim.run(model.runSeconds * 1000, scheduleEvent);
  return {
    ...coverage,
    lambda: sim.lambda.counts,
    runsStarted: sim.runsStarted,
    crashes: sim.crashes,
    successorsInvoked: 0,
    successorsReinvoked: 0,
    lostInvokes: 0,
    watchdogExits: 0,
    checkpointMovedBack: 0,
  };
}

/** The cluster's resourceVersion at `at`: ten changes a second. */
function clusterVersion(at: number): string {
  return String(1_000_000 + Math.floor(at / 100));
}

/** The successor chain with a lease; the schedule only a watchdog. */
export function simulateChain(model: HandoverModel): DesignResult {
  const deadlineMs = relayTimeoutMs(model.runSeconds) - RELAY_FLUSH_RESERVE_SECONDS * 1000;
  const store: { lease?: RelayLease; versions: ResourceVersions } = { versions: {} };
  const counts = {
    successorsInvoked: 0,
    successorsReinvoked: 0,
    lostInvokes: 0,
    watchdogExits: 0,
    checkpointMovedBack: 0,
  };

  const write = (runId: string, own: ResourceVersions) => {
    const next = laterResourceVersions(store.versions, own);
    const before = store.versions.pods;
    if (before !== undefined && Number(next.pods) < Number(before)) counts.checkpointMovedBack++;
    store.versions = next;
    store.lease = relayLease(runId, sim.clock.now);
  };

  const sim: Simulation = new Simulation(model, 2, (invocation) => {
    const now = sim.clock.now;
    const { trigger, predecessor } = relayInvocation(invocation.event.payload);
    if (invocationDecision({ trigger, lease: store.lease, now }) === 'exit') {
      counts.watchdogExits++;
      sim.lambda.release(invocation, now + model.watchdogExitMs);
      return;
    }
    const run = sim.startRun(invocation);
    const runId = invocation.event.id;
    const resumedFrom = store.versions;
    let invokedAt: number | undefined;
    const invokeSuccessor = () => {
      invokedAt = sim.clock.now;
      if (sim.random.lost() >= model.lostInvokeShare) sim.lambda.send(relaySuccessorEvent(runId));
      else {
        counts.lostInvokes++;
        sim.failures.push([invokedAt, invokedAt]);
      }
    };

    const poll = () => {
      if (run.stopped) return;
      const at = sim.clock.now;
      if (shouldHandOver({ ownRunId: runId, lease: store.lease, now: at })) return sim.stop(run);
      if (
        invokedAt !== undefined &&
        shouldReinvokeSuccessor({ ownRunId: runId, lease: store.lease, invokedAt, now: at })
      ) {
        counts.successorsReinvoked++;
        invokeSuccessor();
      }
      sim.clock.at(at + RELAY_HANDOVER_POLL_MS, poll);
    };
    const heartbeat = () => {
      if (run.stopped) return;
      const at = sim.clock.now;
      if (shouldHandOver({ ownRunId: runId, lease: store.lease, now: at })) return sim.stop(run);
      write(runId, { pods: clusterVersion(at) });
      sim.clock.at(at + RELAY_HEARTBEAT_MS, heartbeat);
    };

    sim.clock.at(now + sim.listMs(), () => {
      if (run.stopped) return;
      const at = sim.clock.now;
      if (sim.apiDown(run.startedAt, at)) return sim.fail(run, false);
      sim.watching(run);
      if (!mayTakeLease({ ownRunId: runId, predecessor, lease: store.lease, now: at })) return sim.stop(run);
      // Caught up from the checkpoint it resumed from; the predecessor may have written since.
      write(runId, resumedFrom);
      sim.clock.at(at + RELAY_HEARTBEAT_MS, heartbeat);
      sim.clock.at(successorDueAt(run.startedAt, model.runSeconds), () => {
        if (run.stopped) return;
        counts.successorsInvoked++;
        invokeSuccessor();
        sim.clock.at(sim.clock.now + RELAY_HANDOVER_POLL_MS, poll);
      });
      sim.clock.at(run.startedAt + deadlineMs, () => sim.stop(run));
    });
  });
  const coverage = sim.run(model.watchdogSeconds * 1000, scheduleEvent);
  return {
    ...coverage,
    lambda: sim.lambda.counts,
    runsStarted: sim.runsStarted,
    crashes: sim.crashes,
    ...counts,
  };
}
