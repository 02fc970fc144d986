/**
 * The printed result of `npm run bench -- relay-chain`: from what the chain of real relay runs did
 * (their reports, the record's writes, when nodes joined and when their triggers were accepted),
 * the figures beside their goals, and every assumption behind them.
 */

import {
  RELAY_HANDOVER_POLL_MS,
  RELAY_LEASE_FRESH_MS,
  RELAY_SUCCESSOR_LEAD_MS,
  RELAY_WATCHDOG_SECONDS,
  type ResourceVersions,
} from '../../lib/relay/run/handover.ts';
import type { RelayRunReport } from '../../lib/relay/run/run.ts';
import { RELAY_CHECKPOINT_EVERY_MS, RELAY_FLUSH_RESERVE_SECONDS } from '../../lib/relay/run/run.ts';
import {
  checkpointMovedBack,
  handOverSpans,
  quantile,
  SUCCESSOR_DELAY,
  secondsPerHour,
} from './relay-chain-figures.ts';
import { CRASH_AFTER_LEASE_MS, type FailedRun, FINAL_WATCH_MS } from './relay-chain-runs.ts';
import { analyseCoverage } from './relay-handover-coverage.ts';

/** The deployed period, P = 300 s: twelve hand-overs an hour. */
const DEPLOYED_HANDOVERS_PER_HOUR = 12;

/** What the bench measured. */
export interface ChainMeasurements {
  readonly seed: number;
  readonly periodSeconds: number;
  readonly handovers: number;
  readonly initialNodes: number;
  readonly churnEveryMs: number;
  /** The chain did not end within the bench's patience. */
  readonly stalled: boolean;
  readonly wallMs: number;
  readonly reports: readonly RelayRunReport[];
  readonly failed: readonly FailedRun[];
  readonly delays: readonly number[];
  readonly crash?: { readonly runId: string; readonly at: number };
  /** Node → epoch ms it was created. */
  readonly created: ReadonlyMap<string, number>;
  /** Node → epoch ms its first watch trigger was accepted. */
  readonly accepted: ReadonlyMap<string, number>;
  /** The resourceVersions of every write of the record. */
  readonly written: readonly ResourceVersions[];
  readonly recordReads: number;
  /** The runs' requests to the API server, per run and `verb resource`. */
  readonly requests: readonly { readonly runId: string; readonly request: string; readonly count: number }[];
}

/** The sum of `count` per key of `rows`, largest first, as `key: sum`. */
function tally<T>(
  rows: readonly T[],
  key: (row: T) => string,
  count: (row: T) => number,
): [string, number][] {
  const sums = new Map<string, number>();
  for (const row of rows) sums.set(key(row), (sums.get(key(row)) ?? 0) + count(row));
  return [...sums].sort((a, b) => b[1] - a[1]);
}

const s = (ms: number, digits = 2) => (Number.isFinite(ms) ? (ms / 1000).toFixed(digits) : '—');
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/** The lines to print. */
export function relayChainReport(m: Readonly<ChainMeasurements>): string[] {
  const watched = m.reports.flatMap((r) =>
    r.watching ? [[r.watching.since, r.watching.until] as const] : [],
  );
  const end = Math.max(...watched.map(([, until]) => until));
  const timeoutMs = (m.periodSeconds + 60) * 1000;
  const failures = m.crash ? [[m.crash.at, m.crash.at] as const] : [];
  const coverage = analyseCoverage(watched, failures, end, timeoutMs);
  const elapsedMs = coverage.measuredTo - coverage.measuredFrom;
  const spans = handOverSpans(m.reports);
  const handedOver = spans.length;
  const overlaps = spans.map((span) => span.overlapMs);
  const perDeployedHour = (ms: number) =>
    handedOver > 0 ? (ms / 1000 / handedOver) * DEPLOYED_HANDOVERS_PER_HOUR : 0;
  const unwatched = coverage.unwatchedOutsideFailuresMs;
  const twice = coverage.doubleWatchedMs;

  const injectedGaps = coverage.gaps.filter((gap) => gap.injected);
  const latencies = (outsideInjected: boolean) =>
    [...m.created].flatMap(([name, at]) => {
      if (outsideInjected && injectedGaps.some((gap) => at >= gap.from && at <= gap.to)) return [];
      return [(m.accepted.get(name) ?? Number.POSITIVE_INFINITY) - at];
    });
  const all = latencies(false);
  const neverAccepted = all.filter((latency) => !Number.isFinite(latency)).length;
  const latencyLine = (values: readonly number[]) =>
    `${s(quantile(values, 0.5), 3)} / ${s(quantile(values, 0.99), 3)} / ${s(Math.max(...values), 3)}`;

  const label = (r: RelayRunReport) => (r.runId === m.crash?.runId ? 'crashed (injected)' : r.outcome);
  const outcomes = [
    ...tally(m.reports, label, () => 1),
    ...(m.failed.length > 0 ? [['failed (rejected)', m.failed.length] as const] : []),
  ];
  const apiRequests = m.requests.reduce((sum, r) => sum + r.count, 0);
  const byRun = new Map(
    tally(
      m.requests,
      (r) => r.runId,
      (r) => r.count,
    ),
  );
  const successorRequests = m.reports
    .filter((r) => r.trigger === 'successor' && r.watching)
    .map((r) => byRun.get(r.runId) ?? 0);
  const breakdown = tally(
    m.requests,
    (r) => r.request,
    (r) => r.count,
  )
    .map(([request, count]) => `${request} ${count}`)
    .join(', ');
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const row = (name: string, value: string, goal = '', met?: boolean) =>
    `${name.padEnd(66)}${value.padStart(22)}${goal ? `   goal ${goal.padEnd(6)} ${verdict(met ?? false)}` : ''}`;
  const gapSuffix = m.crash ? ', outside the injected crash' : '';

  return [
    `relay chain: ${handedOver} hand-overs of real relay runs against the simulated cluster, P = ${m.periodSeconds} s, seed ${m.seed}${m.crash ? `, ${m.crash.runId} crashed` : ''}${m.stalled ? ' — STALLED: the chain did not end in time' : ''}`,
    '',
    row('hand-overs', String(handedOver)),
    row('elapsed s (first watch to last run stopping)', s(elapsedMs, 1)),
    row(
      `unwatched seconds per hour, measured${gapSuffix}`,
      secondsPerHour(unwatched, elapsedMs).toFixed(2),
      '0',
      unwatched === 0,
    ),
    row(
      `unwatched seconds per hour at P = 300 s (per hand-over × 12)`,
      perDeployedHour(unwatched).toFixed(2),
      '0',
      unwatched === 0,
    ),
    row(
      `longest unwatched gap (s)${gapSuffix}`,
      s(coverage.longestGapOutsideFailuresMs),
      '≤ 2',
      coverage.longestGapOutsideFailuresMs <= 2000,
    ),
    ...(m.crash ? [row('longest unwatched gap (s), with the injected crash', s(coverage.longestGapMs))] : []),
    row('seconds watched twice per hour, measured', secondsPerHour(twice, elapsedMs).toFixed(2)),
    row(
      'seconds watched twice per hour at P = 300 s (per hand-over × 12)',
      perDeployedHour(twice).toFixed(2),
      '≤ 60',
      perDeployedHour(twice) <= 60,
    ),
    row(
      'overlap per hand-over p50 / max (s)',
      `${s(quantile(overlaps, 0.5))} / ${s(Math.max(...overlaps, 0))}`,
    ),
    row(`node created → trigger accepted p50 / p99 / max (s), ${all.length} nodes`, latencyLine(all)),
    ...(m.crash
      ? [row('  the same, nodes created outside the crash gap', latencyLine(latencies(true)))]
      : []),
    row('nodes whose trigger was never accepted', String(neverAccepted), '0', neverAccepted === 0),
    ...[...m.created]
      .filter(([name]) => !m.accepted.has(name))
      .slice(0, 5)
      .map(([name, at]) => `  ${name}, created ${s(at - coverage.measuredFrom)} s after the first watch`),
    row(
      "API requests per hand-over (all runs' / hand-overs)",
      handedOver > 0 ? (apiRequests / handedOver).toFixed(1) : '—',
    ),
    row(
      'API requests per successor run, mean (its whole run)',
      successorRequests.length > 0 ? mean(successorRequests).toFixed(1) : '—',
    ),
    `  ${apiRequests} requests by ${byRun.size} runs: ${breakdown}`,
    row('checkpoint record writes / reads', `${m.written.length} / ${m.recordReads}`),
    `checkpoint moved back: ${checkpointMovedBack(m.written)} times`,
    `outcomes of the runs: ${outcomes.map(([outcome, count]) => `${outcome} ${count}`).join(', ')}`,
    ...m.failed.map((f) => `  ${f.runId} failed: ${f.error}`),
    `runs: ${m.reports
      .filter((r) => r.watching)
      .map((r) => `${r.runId} ${label(r)} ${s(r.watchedMillis, 1)} s`)
      .join('; ')}`,
    `successor delays drawn p50 / max (s): ${s(quantile(m.delays, 0.5))} / ${s(Math.max(...m.delays, 0))}; wall time ${s(m.wallMs, 1)} s`,
    '',
    'Assumptions:',
    `- the real runRelay (lib/relay/run/run.ts), each run with its own Kubernetes client over HTTP to the simulated cluster (${m.initialNodes} nodes, one more every ${m.churnEveryMs} ms from the first run's lease on), one shared checkpoint record (a file standing for the SSM parameter, no latency) and the local trigger bus (fauxqs).`,
    `- P = ${m.periodSeconds} s: the successor is invoked ${RELAY_SUCCESSOR_LEAD_MS / 1000} s before P, i.e. ${m.periodSeconds - RELAY_SUCCESSOR_LEAD_MS / 1000} s after a run starts; a run watches at most P + 45 s (T − ${RELAY_FLUSH_RESERVE_SECONDS} s, T = P + 60 s); checkpoint (heartbeat) every ${RELAY_CHECKPOINT_EVERY_MS / 1000} s, lease fresh for ${RELAY_LEASE_FRESH_MS / 1000} s, predecessor polls every ${RELAY_HANDOVER_POLL_MS / 1000} s.`,
    `- a successor invocation is accepted at once and its run starts in this process after a delay standing for asynchronous delivery plus a cold start: log-normal, median ${SUCCESSOR_DELAY.medianMs / 1000} s, p99 ${SUCCESSOR_DELAY.p99Ms / 1000} s, capped at ${SUCCESSOR_DELAY.capMs / 1000} s (seeded PRNG); the start-up itself (client, LIST, catch-up) is real.`,
    `- the first run is a watchdog run (no checkpoint: it starts cold); the watchdog ticks every ${RELAY_WATCHDOG_SECONDS} s; the run of successor invocation ${m.handovers} is the last: it takes the lease, watches ${FINAL_WATCH_MS / 1000} s and gives the lease up.`,
    m.crash
      ? `- --crash: ${m.crash.runId} crashes ${CRASH_AFTER_LEASE_MS / 1000} s after taking the lease (nothing it publishes or writes arrives any more, it invokes no successor); the watchdog recovers. A gap is charged to the crash when the crash lies in it or within T before it.`
      : '- no injected failure (--crash makes one run crash after taking the lease).',
    `- "at P = 300 s" scales the measured per-hand-over figure by ${DEPLOYED_HANDOVERS_PER_HOUR} hand-overs an hour; "measured" divides by this run's elapsed time, with a hand-over every ~${m.periodSeconds - RELAY_SUCCESSOR_LEAD_MS / 1000} s plus the start-up.`,
    "- API requests: the runs' requests to the simulated API server (User-Agent everynode/relay), from the first run's start to the last run's end. A run resuming from the checkpoint makes them all at its start: the cluster's identity (GET), a one-object LIST per relayed resource proving the checkpointed version is reached, the LIST of each watched resource and its WATCH; none while it watches (no watch lasts the server's 300 s timeout here).",
  ];
}
