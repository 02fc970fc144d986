import { describe, expect, it } from 'vitest';
import { StepLimiter } from '../../lib/reconcile/step-limiter.ts';

describe('StepLimiter', () => {
  it('runs at most `limit` steps at once, the others in arrival order', async () => {
    const limiter = new StepLimiter(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const step = (i: number) => async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(i);
      running--;
      return i;
    };
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => limiter.run(step(i))));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual([3, 4, 5]);
  });

  it('frees the slot of a step that failed', async () => {
    const limiter = new StepLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });
});
