import { describe, expect, it } from 'vitest';
import { FaultInjector, mulberry32 } from '../../lib/sim/faults.ts';

describe('FaultInjector', () => {
  it('replays the same decisions for the same seed', () => {
    const decisions = (seed: number) => {
      const faults = new FaultInjector(seed);
      faults.setErrorRate('list', { status: 500, rate: 0.5 });
      return Array.from({ length: 20 }, () => faults.decide('list', 'ua').error?.status ?? 200);
    };
    expect(decisions(7)).toEqual(decisions(7));
    expect(decisions(7)).not.toEqual(decisions(8));
  });

  it.each([
    { name: '429 with Retry-After', status: 429 as const, reason: 'TooManyRequests', retry: 3 },
    { name: '503 with Retry-After', status: 503 as const, reason: 'ServiceUnavailable', retry: 2 },
    { name: '500', status: 500 as const, reason: 'InternalError', retry: undefined },
  ])('injects $name for the configured verb only', ({ status, reason, retry }) => {
    const faults = new FaultInjector(1);
    faults.setErrorRate('create', { status, rate: 1, ...(retry ? { retryAfterSeconds: retry } : {}) });
    const decision = faults.decide('create', 'ua');
    expect([decision.error?.status, decision.error?.reason, decision.retryAfterSeconds]).toEqual([
      status,
      reason,
      retry,
    ]);
    expect(faults.decide('get', 'ua').error).toBeUndefined();
  });

  it('limits a matching User-Agent with a token bucket, as API Priority and Fairness answers', () => {
    let now = 0;
    const faults = new FaultInjector(1, () => now);
    faults.limitPerUserAgent({ match: /^everynode/, qps: 2, burst: 2 });
    const codes = () => faults.decide('get', 'everynode/reconcile').error?.status ?? 200;
    expect([codes(), codes(), codes()]).toEqual([200, 200, 429]);
    expect(faults.decide('get', 'kubectl/v1.33').error).toBeUndefined();
    now += 500;
    expect(codes()).toBe(200);
  });

  it('forces 410 on exactly the next watches asked for', () => {
    const faults = new FaultInjector(1);
    faults.forceWatchGone(2);
    expect([
      faults.takeForcedGone('pods'),
      faults.takeForcedGone('nodes'),
      faults.takeForcedGone('pods'),
    ]).toEqual([true, true, false]);
  });

  it('forces 410 on the next watches of one resource only, when it is named', () => {
    const faults = new FaultInjector(1);
    faults.forceWatchGone(1, 'apps/daemonsets');
    expect([faults.takeForcedGone('pods'), faults.takeForcedGone('apps/daemonsets')]).toEqual([false, true]);
    expect(faults.takeForcedGone('apps/daemonsets')).toBe(false);
  });

  it('adds latency within the configured range', () => {
    const faults = new FaultInjector(3);
    faults.setLatency(10, 20);
    const delays = Array.from({ length: 50 }, () => faults.decide('get', 'ua').delayMs);
    expect(delays.every((d) => d >= 10 && d <= 20)).toBe(true);
  });

  it('mulberry32 yields floats in [0, 1)', () => {
    const random = mulberry32(42);
    const values = Array.from({ length: 1000 }, random);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
  });
});
