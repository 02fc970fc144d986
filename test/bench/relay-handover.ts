/**
 * `npm run bench -- relay-handover [--hours 24] [--seed 1] [--api-outage-minutes N]
 * [--crash-percent 1] [--lost-invoke-percent 1] [--run-seconds 300]
 * [--watchdog-seconds 60]`: how long nobody watches the cluster between relay runs
 * on AWS, today (a run every P, reserved concurrency 1) and with the successor chain and lease of
 * lib/relay/run/handover.ts, side by side. A discrete-event timing model over simulated time
 * (relay-handover-model.ts): a day takes well under a second. Goals: no unwatched time outside
 * injected failures, no gap over 2 s, at most 60 s a hour watched twice.
 */
import { parseArgs } from 'node:util';
import {
  RELAY_HANDOVER_POLL_MS,
  RELAY_LEASE_FRESH_MS,
  RELAY_SUCCESSOR_LEAD_MS,
  RELAY_SUCCESSOR_PATIENCE_MS,
  RELAY_WATCHDOG_SECONDS,
} from '../../lib/relay/run/handover.ts';
import { mulberry32 } from '../../lib/sim/faults.ts';
import type { Gap } from './relay-handover-coverage.ts';
import {
  type DesignResult,
  defaultHandoverModel,
  type HandoverModel,
  relayTimeoutMs,
  SCHEDULE_OVERLAP_SECONDS,
  simulateChain,
  simulateToday,
} from './relay-handover-model.ts';

const { values } = parseArgs({
  options: {
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '1' },
    'api-outage-minutes': { type: 'string', default: '0' },
    'crash-percent': { type: 'string', default: '1' },
    'lost-invoke-percent': { type: 'string', default: '1' },
    'run-seconds': { type: 'string', default: '300' },
    'watchdog-seconds': { type: 'string', default: String(RELAY_WATCHDOG_SECONDS) },
  },
});

function numberOption(name: keyof typeof values, min: number): number {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`--${name} must be a number ≥ ${min}, not ${values[name]}`);
  return value;
}

const hours = numberOption('hours', 0.1);
const outageMinutes = numberOption('api-outage-minutes', 0);
const seed = numberOption('seed', 0);
const model: HandoverModel = {
  ...defaultHandoverModel,
  hours,
  seed,
  runSeconds: numberOption('run-seconds', 60),
  crashPerPeriod: numberOption('crash-percent', 0) / 100,
  lostInvokeShare: numberOption('lost-invoke-percent', 0) / 100,
  watchdogSeconds: numberOption('watchdog-seconds', 1),
  // Anywhere in the middle half, so that it is not aligned with the schedules' ticks.
  ...(outageMinutes > 0
    ? {
        apiOutage: { startSeconds: hours * 3600 * (0.25 + 0.5 * mulberry32(seed)()), minutes: outageMinutes },
      }
    : {}),
};

const started = performance.now();
const today = simulateToday(model);
const chain = simulateChain(model);
const elapsed = performance.now() - started;

const perHour = (ms: number, result: DesignResult) =>
  (ms / 1000 / ((result.measuredTo - result.measuredFrom) / 3600_000)).toFixed(2);
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const quantile = (gaps: readonly Gap[], q: number) => {
  const lengths = gaps.filter((gap) => !gap.injected).map((gap) => gap.to - gap.from);
  lengths.sort((a, b) => a - b);
  const length = lengths[Math.min(lengths.length - 1, Math.floor(q * lengths.length))];
  return length === undefined ? '—' : seconds(length);
};
const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'MISSED');

interface Row {
  readonly label: string;
  readonly value: (result: DesignResult) => string;
  readonly goal?: string;
  readonly check?: (result: DesignResult) => string;
}
const rows: Row[] = [
  {
    label: 'unwatched s/hour, outside injected failures',
    value: (r) => perHour(r.unwatchedOutsideFailuresMs, r),
    goal: '0',
    check: (r) => verdict(r.unwatchedOutsideFailuresMs, 0),
  },
  { label: 'unwatched s/hour, total', value: (r) => perHour(r.unwatchedMs, r) },
  {
    label: 'longest unwatched gap (s), outside injected failures',
    value: (r) => seconds(r.longestGapOutsideFailuresMs),
    goal: '≤ 2',
    check: (r) => verdict(r.longestGapOutsideFailuresMs, 2000),
  },
  { label: 'longest unwatched gap (s), overall', value: (r) => seconds(r.longestGapMs) },
  {
    label: 'gaps outside injected failures (count)',
    value: (r) => String(r.gaps.filter((g) => !g.injected).length),
  },
  { label: '  their median / p90 (s)', value: (r) => `${quantile(r.gaps, 0.5)} / ${quantile(r.gaps, 0.9)}` },
  {
    label: 'seconds watched twice per hour',
    value: (r) => perHour(r.doubleWatchedMs, r),
    goal: '≤ 60',
    check: (r) => verdict(r.doubleWatchedMs / ((r.measuredTo - r.measuredFrom) / 3600_000), 60_000),
  },
  { label: 'runs started (relay ran)', value: (r) => String(r.runsStarted) },
  {
    label: 'invocations sent / accepted (with retries)',
    value: (r) => `${r.lambda.sent} / ${r.lambda.accepted}`,
  },
  { label: 'invocations throttled (attempts)', value: (r) => String(r.lambda.throttled) },
  { label: 'events expired in the async queue (6 h)', value: (r) => String(r.lambda.expired) },
  { label: 'cold starts', value: (r) => String(r.lambda.coldStarts) },
  {
    label: 'crashes injected / Lambda error retries',
    value: (r) => `${r.crashes} / ${r.lambda.errorRetries}`,
  },
  {
    label: 'successors invoked / re-invoked',
    value: (r) => `${r.successorsInvoked} / ${r.successorsReinvoked}`,
  },
  { label: 'successor invocations lost (injected)', value: (r) => String(r.lostInvokes) },
  { label: 'watchdog invocations that exited', value: (r) => String(r.watchdogExits) },
  { label: 'checkpoint writes moving a version back', value: (r) => String(r.checkpointMovedBack) },
];

const width = Math.max(...rows.map((row) => row.label.length)) + 2;
const cell = (text: string) => text.padStart(14);
const lines = [
  `relay hand-over: ${hours} h simulated in ${elapsed.toFixed(0)} ms, seed ${model.seed}, P = ${model.runSeconds} s`,
  'A timing model of when some relay run watches, not the real relay against the simulated cluster.',
  '',
  `${''.padEnd(width)}${cell('today')}${cell('chain')}${cell('goal')}   today / chain`,
  ...rows.map(
    (row) =>
      `${row.label.padEnd(width)}${cell(row.value(today))}${cell(row.value(chain))}${cell(row.goal ?? '')}` +
      (row.check ? `   ${row.check(today)} / ${row.check(chain)}` : ''),
  ),
  '',
  'Designs:',
  `- today (the design the chain replaced): the schedule invokes the relay every P; reserved concurrency 1; a run watches from its LIST's end for P + ${SCHEDULE_OVERLAP_SECONDS} s (T = ${relayTimeoutMs(model.runSeconds) / 1000} s), then stops.`,
  `- chain: reserved concurrency 2; successor invoked ${RELAY_SUCCESSOR_LEAD_MS / 1000} s before P ends, takes the lease once its watches are established; the predecessor polls every ${RELAY_HANDOVER_POLL_MS / 1000} s and stops when another run holds a fresh lease, or at T − 15 s; re-invokes after ${RELAY_SUCCESSOR_PATIENCE_MS / 1000} s without takeover; watchdog every ${model.watchdogSeconds} s starts a run when the lease is older than ${RELAY_LEASE_FRESH_MS / 1000} s. Every decision is a call into lib/relay/run/handover.ts.`,
  'Assumptions (same seeded draws for both designs, one stream per input):',
  `- cold start log-normal, median ${model.coldStartMedianMs / 1000} s, p99 ${model.coldStartP99Ms / 1000} s; warm start ${model.warmStartMs} ms on an environment idle < ${model.idleKeepMs / 60_000} min; ${model.recycledShare * 100} % of invocations find it recycled (cold).`,
  `- LIST and catch-up uniform ${model.listMinMs / 1000}–${model.listMaxMs / 1000} s; stopping (flush, last checkpoint write) uniform ${model.stopMinMs / 1000}–${model.stopMaxMs / 1000} s; a watchdog invocation that exits holds its slot ${model.watchdogExitMs} ms; store reads and writes take no time.`,
  `- EventBridge and async-invoke delivery uniform 0–${model.deliveryMaxMs / 1000} s.`,
  '- a throttled async event is retried after U(0, min(300 s, 1 s·2^(n−1))) for its n-th throttle ("full jitter" on the documented 1 s doubling to 5 min), and dropped 6 h after it was sent.',
  '- a failed run (crash, API outage) is a function error: Lambda retries its event after 1 min, then 2 min (the default 2 retries; the stack sets none).',
  `- runs crash at a constant rate, ${model.crashPerPeriod * 100} % per P of run time (exponential time to crash); ${model.lostInvokeShare * 100} % of the chain's successor invocations are lost (the Invoke call fails).`,
  model.apiOutage
    ? `- API server outage from ${(model.apiOutage.startSeconds / 3600).toFixed(3)} h for ${model.apiOutage.minutes} min: watching runs fail at its start, runs starting within it fail at their LIST.`
    : '- no API server outage (--api-outage-minutes N adds one at a seeded moment of the middle half).',
  `- a gap is charged to injected failures when a crash or the outage lies in it or within T = ${relayTimeoutMs(model.runSeconds) / 1000} s before it; watching is counted from the first run's LIST to the end.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
