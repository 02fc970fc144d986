import { describe, expect, it } from 'vitest';
import {
  type BudgetClock,
  RequestBudget,
  requestBudgetFromEnvironment,
} from '../../lib/kube/requests/request-budget.ts';

/** A clock that only moves when someone sleeps on it, so waits are exact. */
function aFakeClock(): BudgetClock & { elapsed: () => number } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now = Math.max(now, ms + now);
    },
    elapsed: () => now,
  };
}

describe('RequestBudget', () => {
  it.each([
    { name: 'within the burst', n: 5, rate: 10, burst: 5 },
    { name: 'twice the burst', n: 20, rate: 10, burst: 10 },
    { name: 'a long run at a low rate', n: 50, rate: 2, burst: 3 },
    { name: 'burst of one', n: 11, rate: 5, burst: 1 },
  ])('$name: N requests in a row take at least (N - burst) / rate', async ({ n, rate, burst }) => {
    const clock = aFakeClock();
    const budget = new RequestBudget({ requestsPerSecond: rate, burst, clock });
    for (let i = 0; i < n; i += 1) await budget.take();
    const minimum = (Math.max(0, n - burst) / rate) * 1000;
    expect(clock.elapsed()).toBeGreaterThanOrEqual(minimum - 1e-6);
    expect(clock.elapsed()).toBeLessThanOrEqual(minimum + 1e-6);
  });

  it('serves concurrent requests in arrival order, one slot each', async () => {
    let now = 0;
    const waits: number[] = [];
    const clock: BudgetClock = { now: () => now, sleep: async (ms) => void waits.push(ms) };
    const budget = new RequestBudget({ requestsPerSecond: 4, burst: 2, clock });
    await Promise.all(Array.from({ length: 6 }, () => budget.take()));
    expect(waits).toEqual([250, 500, 750, 1000]);
    now = 10_000;
    expect(await budget.take()).toBe(0);
  });

  it('refills after a quiet spell, up to the burst', async () => {
    const clock = aFakeClock();
    const budget = new RequestBudget({ requestsPerSecond: 1, burst: 2, clock });
    for (let i = 0; i < 2; i += 1) expect(await budget.take()).toBe(0);
    await clock.sleep(60_000);
    expect(await budget.take()).toBe(0);
    expect(await budget.take()).toBe(0);
    expect(await budget.take()).toBe(1000);
  });

  it.each([
    { name: 'zero rate', requestsPerSecond: 0, burst: 1 },
    { name: 'no burst', requestsPerSecond: 1, burst: 0 },
    { name: 'NaN rate', requestsPerSecond: Number.NaN, burst: 1 },
  ])('refuses $name', ({ requestsPerSecond, burst }) => {
    expect(() => new RequestBudget({ requestsPerSecond, burst })).toThrow(RangeError);
  });

  it('reads KUBE_API_QPS and KUBE_API_BURST', () => {
    expect(requestBudgetFromEnvironment({ KUBE_API_QPS: '20', KUBE_API_BURST: '30' })).toMatchObject({
      requestsPerSecond: 20,
      burst: 30,
    });
    expect(requestBudgetFromEnvironment({})).toMatchObject({ requestsPerSecond: 50, burst: 100 });
  });
});
