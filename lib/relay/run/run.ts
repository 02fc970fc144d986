/**
 * One relay run on AWS: a link in the chain of runs that hand the watch over to one another with
 * no unwatched moment (docs/design.md, 25. The relay's hand-over on AWS; the rules are
 * relay-handover.ts). Let P = EVERYNODE_RELAY_RUN_SECONDS (the stack's `relayEvery`, default
 * 300 s) and T = min(900, P + 60) s the function timeout.
 * - A watchdog invocation (the schedule, every minute) exits at once while another run holds a
 *   fresh lease; a successor invocation always runs.
 * - A run resumes from the checkpoint, starts its watches and takes the lease with its first
 *   write ({@link LeasedCheckpointStore}); as holder it writes the checkpoint, a heartbeat, every
 *   {@link RELAY_CHECKPOINT_EVERY_MS}.
 * - 20 s before P has passed it invokes its successor, then reads the record every second and stops
 *   as soon as another run holds the lease, without writing again; without a takeover within 30 s it
 *   invokes another successor. Duplicate triggers of the overlap (about a second) carry the same
 *   de-duplication ids and are reconciled once.
 * - At its deadline, T − {@link RELAY_FLUSH_RESERVE_SECONDS} (P + 45 s), a run nobody took over from
 *   publishes what is queued and gives the lease up with its last write, so the next watchdog tick
 *   starts a run; within the API server's watch history (5 minutes by default) that run replays
 *   what changed meanwhile, beyond it the watch answers 410 Gone and the relay relists and
 *   publishes a resync trigger.
 * - A run that cannot start (the API server is down) fails without taking the lease: its
 *   predecessor invokes another successor or, at its deadline, gives the lease up to the watchdog.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import {
  invocationDecision,
  RELAY_HANDOVER_POLL_MS,
  RELAY_HEARTBEAT_MS,
  type RelaySuccessorEvent,
  relayInvocation,
  relaySuccessorEvent,
  shouldReinvokeSuccessor,
  successorDueAt,
} from './handover.ts';
import { type HandOver, LeasedCheckpointStore } from './lease-store.ts';
import { type RelayOptions, startRelay } from './relay.ts';

/** Seconds kept before the function timeout to publish the last batch and write the checkpoint. */
export const RELAY_FLUSH_RESERVE_SECONDS = 15;
/** How often the lease holder writes the checkpoint: its heartbeat. */
export const RELAY_CHECKPOINT_EVERY_MS = RELAY_HEARTBEAT_MS;

/** How long a run started `remainingMillis` before its timeout may watch: up to the flush reserve. */
export function relayDeadlineMillis(remainingMillis: number): number {
  return Math.max(0, remainingMillis - RELAY_FLUSH_RESERVE_SECONDS * 1000);
}

/** What one invocation needs. */
export interface RelayRunOptions {
  /** The relay; its `checkpoints` is the record shared by all runs (the SSM parameter). */
  readonly relay: Readonly<RelayOptions>;
  /** The invocation's event: a successor event, or the watchdog schedule's. */
  readonly event: unknown;
  /** This run's id: the Lambda request id, which a retried invocation keeps. */
  readonly runId: string;
  /** P, the period after which a run hands over. */
  readonly runSeconds: number;
  /** How long this run may watch at most (see {@link relayDeadlineMillis}). */
  readonly watchMillis: number;
  /** Invokes the successor asynchronously (on AWS: Lambda `Invoke` of the function itself). */
  readonly invokeSuccessor: (event: RelaySuccessorEvent) => Promise<void>;
  /** Called after each checkpoint write as lease holder. */
  readonly onHeartbeat?: () => void;
  /** Epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
  /** How often a run that invoked its successor reads the record (default 1 s). */
  readonly pollMs?: number;
}

/** How a run ended. */
export type RelayRunOutcome =
  /** A watchdog invocation while another run held the lease: it did not watch. */
  | 'not-needed'
  /** Its successor (or another run) took the lease over. */
  | 'handed-over'
  /** Another run held the lease when it first wrote: a late or duplicate successor. */
  | 'superseded'
  /** It reached its deadline with nobody taking over and gave the lease up. */
  | 'deadline'
  /** The relay stopped on its own (publishing failed): the lease is given up. */
  | 'relay-stopped';

/** What one run did. */
export interface RelayRunReport {
  readonly runId: string;
  readonly trigger: 'schedule' | 'successor';
  readonly outcome: RelayRunOutcome;
  readonly watchedMillis: number;
  /** Epoch ms when its watches were established and when it stopped them (when it watched). */
  readonly watching?: { readonly since: number; readonly until: number };
  readonly successorsInvoked: number;
  /** The run that took over, when one did. */
  readonly successor?: string;
  readonly forwarded: number;
  readonly dropped: number;
  readonly coalesced: number;
  readonly relists: number;
  readonly published: number;
}

const idle = { forwarded: 0, dropped: 0, coalesced: 0, relists: 0, published: 0 };

/**
 * Runs one invocation: decides whether it watches, runs the relay while it holds the lease, invokes
 * its successor in time and stops when it has taken over (or at the deadline). Rejects when the
 * relay could not start or publishing failed: the next run resumes from the checkpoint.
 */
export async function runRelay(options: Readonly<RelayRunOptions>): Promise<RelayRunReport> {
  const now = options.now ?? Date.now;
  const { trigger, predecessor } = relayInvocation(options.event);
  const { runId, relay: relayOptions } = options;
  const base = { runId, trigger, successorsInvoked: 0 };
  const record = await relayOptions.checkpoints.load();
  if (invocationDecision({ trigger, lease: record?.lease, now: now() }) === 'exit') {
    return { ...base, outcome: 'not-needed', watchedMillis: 0, ...idle };
  }
  const started = now();
  const leased = new LeasedCheckpointStore({
    store: relayOptions.checkpoints,
    runId,
    predecessor,
    now,
    ...(options.onHeartbeat ? { onHeartbeat: options.onHeartbeat } : {}),
  });
  const relay = await startRelay({ ...relayOptions, checkpoints: leased });
  const since = now();
  let stopped = false;
  relay.done.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  const chain = new SuccessorChain(options, leased, now, started);
  while (!stopped && !leased.handedOver && now() < started + options.watchMillis) {
    const wait = Math.min(options.pollMs ?? RELAY_HANDOVER_POLL_MS, started + options.watchMillis - now());
    await Promise.race([sleep(Math.max(0, wait)), relay.done.catch(() => undefined)]);
    if (!stopped) await chain.step();
  }
  const handOver = leased.handedOver;
  const outcome = outcomeOf(handOver, stopped);
  if (!handOver) leased.release();
  const until = now();
  await relay.stop();
  const report: RelayRunReport = {
    ...base,
    outcome,
    watchedMillis: now() - started,
    watching: { since, until },
    successorsInvoked: chain.invoked,
    ...(handOver ? { successor: handOver.holder.runId } : {}),
    ...relay.stats,
    published: relay.published,
  };
  logOutcome(relayOptions.logger, report);
  return report;
}

function outcomeOf(handOver: HandOver | undefined, stopped: boolean): RelayRunOutcome {
  if (handOver) return handOver.held ? 'handed-over' : 'superseded';
  return stopped ? 'relay-stopped' : 'deadline';
}

function logOutcome(logger: StructuredLogger, report: RelayRunReport): void {
  if (report.outcome === 'deadline')
    logger.warn(
      'no successor took the watch over before the deadline; the lease is given up to the watchdog',
      {
        ...report,
      },
    );
  else if (report.outcome === 'superseded')
    logger.info('another run already holds the relay lease; this late successor stops', { ...report });
}

/** When to invoke the successor, and again when it does not take over. */
class SuccessorChain {
  invoked = 0;
  private invokedAt: number | undefined;

  constructor(
    private readonly options: Readonly<RelayRunOptions>,
    private readonly leased: LeasedCheckpointStore,
    private readonly now: () => number,
    private readonly started: number,
  ) {}

  /** One poll: invoke the successor when due, read the record once one was invoked. */
  async step(): Promise<void> {
    const { invokedAt } = this;
    if (invokedAt === undefined) {
      const due = successorDueAt(this.started, this.options.runSeconds);
      if (this.now() >= due && this.leased.holdsLease) await this.invoke();
      return;
    }
    const lease = await this.leased.poll().catch((error) => {
      this.options.relay.logger.warn('reading the relay lease failed', { error: String(error) });
      return undefined;
    });
    if (this.leased.handedOver) return;
    const { runId } = this.options;
    if (shouldReinvokeSuccessor({ ownRunId: runId, lease, invokedAt, now: this.now() })) await this.invoke();
  }

  private async invoke(): Promise<void> {
    const { runId, relay } = this.options;
    try {
      await this.options.invokeSuccessor(relaySuccessorEvent(runId));
      this.invokedAt = this.now();
      this.invoked += 1;
      relay.logger.info('invoked the next relay run', { runId, invoked: this.invoked });
    } catch (error) {
      // Tried again at the next poll.
      relay.logger.warn('invoking the next relay run failed', { runId, error: String(error) });
    }
  }
}
