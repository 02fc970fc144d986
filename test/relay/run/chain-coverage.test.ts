/**
 * The figures of `npm run bench -- relay-chain` (test/bench/relay-chain-figures.ts): what each
 * hand-over left unwatched or watched twice, whether the checkpoint moved back, the successors'
 * drawn delays; and how the bench makes a run crash (relay-chain-world.ts).
 */
import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../../../lib/queue/event-bus.ts';
import type { RelayCheckpoint } from '../../../lib/relay/run/checkpoint.ts';
import type { RelayRunReport } from '../../../lib/relay/run/run.ts';
import { mulberry32 } from '../../../lib/sim/faults.ts';
import {
  checkpointMovedBack,
  handOverSpans,
  quantile,
  SUCCESSOR_DELAY,
  secondsPerHour,
  successorDelayMs,
} from '../../bench/relay-chain-figures.ts';
import { CrashableRun } from '../../bench/relay-chain-world.ts';
import { analyseCoverage } from '../../bench/relay-handover-coverage.ts';

const counts = { successorsInvoked: 1, forwarded: 0, dropped: 0, coalesced: 0, relists: 0, published: 0 };

function report(
  runId: string,
  since: number,
  until: number,
  outcome: RelayRunReport['outcome'],
  successor?: string,
): RelayRunReport {
  return {
    ...counts,
    runId,
    trigger: runId === 'a' ? 'schedule' : 'successor',
    outcome,
    watchedMillis: until - since,
    watching: { since, until },
    ...(successor ? { successor } : {}),
  };
}

describe('the relay chain bench figures', () => {
  it('measures each hand-over: overlap when the predecessor stopped after, a gap when before', () => {
    const reports = [
      report('b', 1_000, 2_000, 'handed-over', 'c'),
      report('a', 0, 1_300, 'handed-over', 'b'),
      report('c', 2_500, 4_000, 'deadline'),
      report('x', 0, 0, 'superseded', 'c'),
    ];
    expect(handOverSpans(reports)).toEqual([
      { from: 'b', to: 'c', overlapMs: 0, gapMs: 500 },
      { from: 'a', to: 'b', overlapMs: 300, gapMs: 0 },
    ]);
    // The same intervals' union: 500 ms unwatched between b and c, 300 ms watched twice.
    const watched = reports.slice(0, 3).map((r) => [r.watching?.since ?? 0, r.watching?.until ?? 0] as const);
    const coverage = analyseCoverage(watched, [], 4_000, 0);
    expect(coverage).toMatchObject({ unwatchedMs: 500, longestGapMs: 500, doubleWatchedMs: 300 });
  });

  it('leaves out a hand-over whose successor never reported', () => {
    expect(handOverSpans([report('a', 0, 1_000, 'handed-over', 'gone')])).toEqual([]);
  });

  it('counts the writes that moved some resource back, dropped it, or cannot be compared', () => {
    expect(
      checkpointMovedBack([{ nodes: '5' }, { nodes: '5' }, { nodes: '9', pods: '3' }, { nodes: '10' }]),
    ).toBe(1);
    expect(checkpointMovedBack([{ nodes: '9' }, { nodes: '10' }, { nodes: '8' }])).toBe(1);
    expect(checkpointMovedBack([{ nodes: '9' }, { nodes: 'x' }])).toBe(1);
    expect(checkpointMovedBack([{}, { nodes: '1' }, { nodes: '2', daemonsets: '4' }])).toBe(0);
  });

  it('draws successor delays with the stated median and p99, never beyond the cap', () => {
    const random = mulberry32(7);
    const delays = Array.from({ length: 20_000 }, () => successorDelayMs(random));
    expect(quantile(delays, 0.5)).toBeGreaterThan(1_400);
    expect(quantile(delays, 0.5)).toBeLessThan(1_600);
    expect(quantile(delays, 0.99)).toBeGreaterThan(5_300);
    expect(quantile(delays, 0.99)).toBeLessThan(6_800);
    expect(Math.max(...delays)).toBe(SUCCESSOR_DELAY.capMs);
    expect(Math.min(...delays)).toBeGreaterThan(0);
  });

  it('scales to an hour and takes nearest-rank quantiles', () => {
    expect(secondsPerHour(1_000, 60_000)).toBe(60);
    expect(secondsPerHour(1_000, 0)).toBe(0);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2);
    expect(quantile([4, 1, 3, 2], 0.99)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('a crashing run of the bench', () => {
  it('passes everything through until it crashes, then loses it and jumps past every deadline', async () => {
    const published: BusEvent[] = [];
    const saved: RelayCheckpoint[] = [];
    const run = new CrashableRun(
      {
        bus: { publish: async (events) => void published.push(...events) },
        store: { load: async () => saved.at(-1), save: async (c) => void saved.push(c) },
      },
      50,
    );
    const event: BusEvent = { source: 'everynode.relay', detailType: 'watch', detail: { kind: 'Node' } };
    const checkpoint: RelayCheckpoint = { managedKind: 'apps/v1', resourceVersions: { nodes: '1' } };
    await run.bus.publish([event]);
    await run.store.save(checkpoint);
    expect(run.crashed).toBe(false);
    expect(Math.abs(run.now() - Date.now())).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(run.crashed).toBe(true);
    await run.bus.publish([event]);
    await run.store.save({ ...checkpoint, resourceVersions: { nodes: '2' } });
    expect(published).toHaveLength(1);
    expect(saved).toHaveLength(1);
    expect(run.now() - Date.now()).toBeGreaterThan(1e8);
    expect((await run.store.load())?.resourceVersions.nodes).toBe('1');
  });

  it('never crashes when no crash is asked for', async () => {
    const run = new CrashableRun({
      bus: { publish: async () => undefined },
      store: { load: async () => undefined, save: async () => undefined },
    });
    await run.store.save({ managedKind: 'apps/v1', resourceVersions: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.crashed).toBe(false);
  });
});
