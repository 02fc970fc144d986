/**
 * The pure part of `npm run bench -- relay-chain`: the delay standing for a successor's delivery
 * and cold start, what each hand-over left unwatched or watched twice, and whether the checkpoint
 * record ever moved back. The union of the watched intervals is relay-handover-coverage.ts's.
 */
import type { TriggeringResource } from '../../lib/kube/kube-port.ts';
import { compareResourceVersions } from '../../lib/kube/resource-version.ts';
import type { ResourceVersions } from '../../lib/relay/run/handover.ts';
import type { RelayRunReport } from '../../lib/relay/run/run.ts';
import { logNormal } from './relay-handover-lambda.ts';

/** How a successor invocation is delayed: Lambda's asynchronous delivery plus a cold start. */
export interface SuccessorDelayModel {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** No draw exceeds this: a start that slow would be a failure, which the bench injects apart. */
  readonly capMs: number;
}

/** The delay the timing model draws for a cold start (relay-handover-model.ts), capped at 10 s. */
export const SUCCESSOR_DELAY: SuccessorDelayModel = { medianMs: 1_500, p99Ms: 6_000, capMs: 10_000 };

/** One delay from `random` (uniform in [0, 1)): log-normal with the model's median and p99, capped. */
export function successorDelayMs(random: () => number, model: SuccessorDelayModel = SUCCESSOR_DELAY): number {
  return Math.min(model.capMs, logNormal(random, model.medianMs, model.p99Ms));
}

/** One hand-over: a run stopping after its successor took the lease. */
export interface HandOverSpan {
  readonly from: string;
  readonly to: string;
  /** How long both watched: the predecessor's end minus the successor's start, when positive. */
  readonly overlapMs: number;
  /** How long neither watched: the successor's start minus the predecessor's end, when positive. */
  readonly gapMs: number;
}

/**
 * Every hand-over among `reports`: each run that ended `handed-over`, paired with the run that
 * took the lease from it. A successor that never reported (or never watched) is left out.
 */
export function handOverSpans(reports: readonly RelayRunReport[]): HandOverSpan[] {
  const byId = new Map(reports.map((report) => [report.runId, report]));
  const spans: HandOverSpan[] = [];
  for (const report of reports) {
    if (report.outcome !== 'handed-over' || report.successor === undefined) continue;
    const before = report.watching;
    const after = byId.get(report.successor)?.watching;
    if (before === undefined || after === undefined) continue;
    const overlap = before.until - after.since;
    spans.push({
      from: report.runId,
      to: report.successor,
      overlapMs: Math.max(0, overlap),
      gapMs: Math.max(0, -overlap),
    });
  }
  return spans;
}

/**
 * How many writes of the checkpoint record moved some resource's version back from the write
 * before: a resource the earlier write named that the later one drops, or names older. Versions
 * that do not compare (not well-formed integers) count as moved back: nothing proves they did not.
 */
export function checkpointMovedBack(written: readonly ResourceVersions[]): number {
  let movedBack = 0;
  for (let i = 1; i < written.length; i++) {
    const before = written[i - 1] ?? {};
    const after = written[i] ?? {};
    const back = (Object.keys(before) as TriggeringResource[]).some((resource) => {
      const was = before[resource];
      const is = after[resource];
      if (was === undefined) return false;
      const order = is === undefined ? undefined : compareResourceVersions(is, was);
      return order === undefined || order === -1;
    });
    if (back) movedBack += 1;
  }
  return movedBack;
}

/** The `q`-quantile of `values` by nearest rank; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** Per hour of `elapsedMs`, the seconds of `ms`. */
export function secondsPerHour(ms: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (ms / 1000) * (3_600_000 / elapsedMs) : 0;
}
