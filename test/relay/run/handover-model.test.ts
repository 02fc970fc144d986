import { describe, expect, it } from 'vitest';
import {
  RELAY_HANDOVER_POLL_MS,
  RELAY_LEASE_FRESH_MS,
  RELAY_WATCHDOG_SECONDS,
} from '../../../lib/relay/run/handover.ts';
import { analyseCoverage } from '../../bench/relay-handover-coverage.ts';
import {
  defaultHandoverModel,
  type HandoverModel,
  simulateChain,
  simulateToday,
} from '../../bench/relay-handover-model.ts';

/** No start-up, LIST, delivery or stopping time, no jitter and no random failures. */
const instant: HandoverModel = {
  ...defaultHandoverModel,
  hours: 2,
  coldStartMedianMs: 0,
  coldStartP99Ms: 0,
  warmStartMs: 0,
  recycledShare: 0,
  listMinMs: 0,
  listMaxMs: 0,
  deliveryMaxMs: 0,
  stopMinMs: 0,
  stopMaxMs: 0,
  jitter: 'none',
  crashPerPeriod: 0,
  lostInvokeShare: 0,
};
const watchdogMs = RELAY_WATCHDOG_SECONDS * 1000;
const seconds = (ms: number) => ms / 1000;

describe('relay hand-over model: today', () => {
  it('with instant starts and no failures, every hand-over waits for the throttled event’s retry', () => {
    const today = simulateToday(instant);
    // Run 1 watches [0, 330 s]; the event of 300 s is throttled and retried at 301, 303, …, 331 s.
    expect(today.gaps[0]).toEqual({ from: 330_000, to: 331_000, injected: false });
    expect(today.gaps).toHaveLength(today.runsStarted - 1);
    for (const gap of today.gaps) expect(gap.to - gap.from).toBeGreaterThan(0);
    expect(Math.max(...today.gaps.map((gap) => gap.to - gap.from))).toBeLessThanOrEqual(300_000);
    expect(today.longestGapOutsideFailuresMs).toBeGreaterThan(30_000);
    expect(today.doubleWatchedMs).toBe(0);
    expect(today.lambda.throttled).toBeGreaterThan(today.runsStarted);
  });

  it('a crash is retried by Lambda after a minute', () => {
    const today = simulateToday({ ...instant, crashesAtSeconds: [500] });
    expect(today.crashes).toBe(1);
    expect(today.gaps).toContainEqual({ from: 500_000, to: 560_000, injected: true });
  });
});

describe('relay hand-over model: successor chain', () => {
  it('with instant starts and no failures, nothing is unwatched and each hand-over overlaps one poll', () => {
    const chain = simulateChain(instant);
    expect(chain.gaps).toEqual([]);
    expect(chain.measuredFrom).toBe(0);
    expect(chain.successorsInvoked).toBe(chain.runsStarted - 1);
    expect(chain.doubleWatchedMs).toBe((chain.runsStarted - 1) * RELAY_HANDOVER_POLL_MS);
    expect(chain.lambda.sent).toBe(120 + chain.successorsInvoked);
    expect(chain.watchdogExits).toBe(119);
  });

  it('a crashed lease holder is replaced within the lease freshness plus one watchdog period', () => {
    const chain = simulateChain({ ...instant, crashesAtSeconds: [1000, 2345, 4000] });
    expect(chain.crashes).toBe(3);
    expect(chain.gaps).toHaveLength(3);
    for (const gap of chain.gaps) {
      expect(gap.injected).toBe(true);
      expect(gap.to - gap.from).toBeGreaterThan(0);
      expect(gap.to - gap.from).toBeLessThanOrEqual(RELAY_LEASE_FRESH_MS + watchdogMs);
    }
    expect(chain.unwatchedOutsideFailuresMs).toBe(0);
  });

  it('after an API outage a run watches again within one watchdog period and a start', () => {
    const outage = { startSeconds: 3617, minutes: 10 };
    const chain = simulateChain({
      ...defaultHandoverModel,
      hours: 3,
      crashPerPeriod: 0,
      lostInvokeShare: 0,
      apiOutage: outage,
    });
    expect(chain.gaps).toHaveLength(1);
    const [gap] = chain.gaps;
    expect(gap?.from).toBe(outage.startSeconds * 1000);
    const outageEnd = (outage.startSeconds + outage.minutes * 60) * 1000;
    expect(gap?.to).toBeGreaterThan(outageEnd);
    expect(seconds((gap?.to ?? 0) - outageEnd)).toBeLessThanOrEqual(RELAY_WATCHDOG_SECONDS + 10);
  });

  it('lost successor invocations are re-invoked; what gaps remain are charged to them', () => {
    const chain = simulateChain({
      ...defaultHandoverModel,
      hours: 12,
      crashPerPeriod: 0,
      lostInvokeShare: 0.3,
    });
    expect(chain.lostInvokes).toBeGreaterThan(10);
    expect(chain.successorsReinvoked).toBeGreaterThan(10);
    expect(chain.unwatchedOutsideFailuresMs).toBe(0);
    expect(chain.longestGapMs).toBeLessThanOrEqual(RELAY_LEASE_FRESH_MS + watchdogMs + 10_000);
  });
});

describe('relay hand-over model: both designs with the default draws', () => {
  it('the chain meets the goals, today does not, and a seed replays the same figures', () => {
    const model = { ...defaultHandoverModel, hours: 24 };
    const chain = simulateChain(model);
    const today = simulateToday(model);
    const hours = (chain.measuredTo - chain.measuredFrom) / 3600_000;
    expect(chain.unwatchedOutsideFailuresMs).toBe(0);
    expect(chain.longestGapOutsideFailuresMs).toBeLessThanOrEqual(2000);
    expect(chain.doubleWatchedMs / hours).toBeLessThanOrEqual(60_000);
    expect(chain.checkpointMovedBack).toBe(0);
    expect(chain.crashes).toBeGreaterThan(0);
    expect(today.unwatchedOutsideFailuresMs / hours).toBeGreaterThan(30_000);
    expect(simulateChain(model)).toEqual(chain);
    expect(simulateToday(model)).toEqual(today);
    expect(simulateChain({ ...model, seed: 2 })).not.toEqual(chain);
  });
});

describe('relay hand-over coverage', () => {
  it('finds gaps and double watching, and charges a gap to a failure within the window before it', () => {
    const coverage = analyseCoverage(
      [
        [10, 50],
        [40, 60],
        [60, 70],
        [80, 100],
        [300, 400],
      ],
      [[75, 75]],
      450,
      20,
    );
    expect(coverage.measuredFrom).toBe(10);
    expect(coverage.gaps).toEqual([
      { from: 70, to: 80, injected: true },
      { from: 100, to: 300, injected: false },
      { from: 400, to: 450, injected: false },
    ]);
    expect(coverage.doubleWatchedMs).toBe(10);
    expect(coverage.unwatchedMs).toBe(260);
    expect(coverage.unwatchedOutsideFailuresMs).toBe(250);
    expect(coverage.longestGapMs).toBe(200);
  });
});
