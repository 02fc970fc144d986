/**
 * The chain of real relay runs (lib/relay/run/run.ts) of `npm run bench -- relay-chain`, in this
 * process: the first a watchdog run, each successor invocation starting the next run after a
 * drawn delay (asynchronous delivery plus a cold start), as Lambda would start it in another
 * container, with the watchdog schedule ticking beside them. Each run has its own Kubernetes
 * client (a new container) and shares the bus and the checkpoint record with the others.
 */

import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { silentLogger } from '../../lib/log/structured-logger.ts';
import type { EventBus } from '../../lib/queue/event-bus.ts';
import type { RelayCheckpointStore } from '../../lib/relay/run/checkpoint.ts';
import {
  RELAY_HANDOVER_POLL_MS,
  RELAY_WATCHDOG_SECONDS,
  type RelaySuccessorEvent,
} from '../../lib/relay/run/handover.ts';
import {
  RELAY_CHECKPOINT_EVERY_MS,
  type RelayRunReport,
  relayDeadlineMillis,
  runRelay,
} from '../../lib/relay/run/run.ts';
import { successorDelayMs } from './relay-chain-figures.ts';
import { CrashableRun } from './relay-chain-world.ts';

/** The User-Agent of the runs' Kubernetes clients, as the relay function sends it. */
export const RELAY_USER_AGENT = 'everynode/relay';

/** The User-Agent of run `runId`: the function's, naming the run, so requests count per run. */
export function runUserAgent(runId: string): string {
  return `${RELAY_USER_AGENT} (${runId})`;
}

/** The run a {@link runUserAgent} names; undefined for any other client. */
export function runOfUserAgent(userAgent: string): string | undefined {
  const prefix = `${RELAY_USER_AGENT} (`;
  return userAgent.startsWith(prefix) && userAgent.endsWith(')')
    ? userAgent.slice(prefix.length, -1)
    : undefined;
}

/** How long the last run watches: it takes the lease, then gives it up at this deadline. */
export const FINAL_WATCH_MS = 6_000;

/** How long after its first write (taking the lease) the run chosen by `--crash` crashes. */
export const CRASH_AFTER_LEASE_MS = 2_000;

/** What the chain runs against and how. */
export interface RelayChainOptions {
  /** The simulated cluster's kubeconfig. */
  readonly kubeconfig: string;
  readonly bus: EventBus;
  readonly store: RelayCheckpointStore;
  /** P, EVERYNODE_RELAY_RUN_SECONDS. */
  readonly periodSeconds: number;
  /** Hand-overs after which the chain ends: the run this successor invocation starts is the last. */
  readonly handovers: number;
  /** Uniform draws in [0, 1) for the successors' delays. */
  readonly random: () => number;
  /** The successor invocation whose run crashes; undefined for none. */
  readonly crashInvocation?: number;
}

/** A run that rejected (its relay could not start): a function error on AWS. */
export interface FailedRun {
  readonly runId: string;
  readonly error: string;
}

/** The chain of runs, from its first watchdog run to its last run's deadline. */
export class RelayChain {
  /** The reports of the runs that ended, in the order they ended (a crashed run's cut at its crash). */
  readonly reports: RelayRunReport[] = [];
  readonly failed: FailedRun[] = [];
  /** The successors' drawn delays, in ms. */
  readonly delays: number[] = [];
  /** The injected crash, once it happened. */
  crash: { readonly runId: string; readonly at: number } | undefined;
  private readonly running = new Set<Promise<void>>();
  private invocations = 0;
  private ticks = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private lastStarted: ((at: number) => void) | undefined;
  /** Settles with the epoch ms at which the last run was started. */
  readonly lastRunStarted: Promise<number> = new Promise((resolve) => (this.lastStarted = resolve));
  private lastEnded: (() => void) | undefined;
  /** Settles once the last run ended (or failed). */
  readonly ended: Promise<void> = new Promise((resolve) => (this.lastEnded = resolve));

  constructor(private readonly options: Readonly<RelayChainOptions>) {}

  /** Starts the first run, as a watchdog tick, and the watchdog schedule. */
  start(): void {
    this.startRun('watchdog-0', { source: 'aws.events', 'detail-type': 'Scheduled Event' }, false);
    this.watchdog = setInterval(() => {
      this.ticks += 1;
      this.startRun(
        `watchdog-${this.ticks}`,
        { source: 'aws.events', 'detail-type': 'Scheduled Event' },
        false,
      );
    }, RELAY_WATCHDOG_SECONDS * 1000);
  }

  /** Stops the watchdog and waits for every run still going. */
  async settle(): Promise<void> {
    clearInterval(this.watchdog);
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** One invocation: a run of `runId` for `event`; the last run hands over to nobody. */
  private startRun(runId: string, event: unknown, last: boolean, crashes = false): void {
    const { options } = this;
    const invokedAt = Date.now();
    const run = new CrashableRun(
      { bus: options.bus, store: options.store },
      crashes ? CRASH_AFTER_LEASE_MS : undefined,
    );
    const started = runRelay({
      relay: {
        kube: createKubePort({
          connection: connectionFromKubeConfig(loadKubeConfig({ yaml: options.kubeconfig })),
          managedKind: 'apps/v1',
          userAgent: runUserAgent(runId),
        }),
        managedKind: 'apps/v1',
        bus: run.bus,
        checkpoints: run.store,
        logger: silentLogger,
        checkpointEveryMs: RELAY_CHECKPOINT_EVERY_MS,
        lingerMs: 20,
      },
      event,
      runId,
      // The last run is never due to invoke a successor before its short deadline.
      runSeconds: last ? 3_600 : options.periodSeconds,
      // T − 15 s with the function timeout T = P + 60 s: P + 45 s.
      watchMillis: last ? FINAL_WATCH_MS : relayDeadlineMillis((options.periodSeconds + 60) * 1000),
      invokeSuccessor: async (successorEvent) => {
        if (!run.crashed) this.invoke(successorEvent);
      },
      now: run.now,
      pollMs: RELAY_HANDOVER_POLL_MS,
    });
    const settled = started.then(
      (report) => {
        const crashedAt = run.crashedAt;
        if (crashedAt !== undefined) this.crash = { runId, at: crashedAt };
        this.reports.push(
          crashedAt === undefined || report.watching === undefined
            ? report
            : {
                ...report,
                watchedMillis: crashedAt - invokedAt,
                watching: { since: report.watching.since, until: crashedAt },
              },
        );
      },
      (error: unknown) => {
        this.failed.push({ runId, error: error instanceof Error ? error.message : String(error) });
      },
    );
    const tracked = settled.finally(() => {
      this.running.delete(tracked);
      if (last) this.lastEnded?.();
    });
    this.running.add(tracked);
    if (last) {
      clearInterval(this.watchdog);
      this.lastStarted?.(Date.now());
    }
  }

  /** A successor invocation: accepted at once, its run starting after the drawn delay. */
  private invoke(event: RelaySuccessorEvent): void {
    this.invocations += 1;
    const n = this.invocations;
    const delay = successorDelayMs(this.options.random);
    this.delays.push(delay);
    const last = n >= this.options.handovers;
    const crashes = n === this.options.crashInvocation;
    const timer = new Promise<void>((resolve) => setTimeout(resolve, delay));
    const starting = timer.then(() => this.startRun(`run-${n}`, event, last, crashes));
    const tracked = starting.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
