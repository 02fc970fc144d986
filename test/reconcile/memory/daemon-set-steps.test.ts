import { describe, expect, it } from 'vitest';
import { COVER_MARGIN_MS, DaemonSetSteps } from '../../../lib/reconcile/memory/daemon-set-steps.ts';

describe('DaemonSetSteps', () => {
  it('runs at most `limit` steps at once, the others in arrival order', async () => {
    const steps = new DaemonSetSteps(2);
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
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => steps.run(step(i))));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual([3, 4, 5]);
  });

  it('frees the slot of a step that failed', async () => {
    const steps = new DaemonSetSteps(1);
    await expect(steps.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await steps.run(async () => 'next')).toBe('next');
  });

  it('skips a step whose message was sent before the reads of a completed step of the same key', async () => {
    const steps = new DaemonSetSteps(1);
    const t = 1_000_000;
    expect(await steps.runUncovered('ds', t, t + 10, async () => 'first')).toBe('first');
    const sentBefore = t + 10 - COVER_MARGIN_MS - 1;
    expect(await steps.runUncovered('ds', sentBefore, t + 20, async () => 'again')).toBeUndefined();
    // Sent too close to those reads, or after them: it runs.
    expect(await steps.runUncovered('ds', t + 10 - COVER_MARGIN_MS, t + 30, async () => 'close')).toBe(
      'close',
    );
    expect(await steps.runUncovered('ds', t + 40, t + 50, async () => 'later')).toBe('later');
    // Another key, or a message that may not be stood in for (no sent time): it runs.
    expect(await steps.runUncovered('other', sentBefore, t + 60, async () => 'other')).toBe('other');
    expect(await steps.runUncovered('ds', undefined, t + 70, async () => 'resync')).toBe('resync');
  });

  it('lets no failed step stand in for a later one', async () => {
    const steps = new DaemonSetSteps(1);
    const t = 2_000_000;
    await expect(
      steps.runUncovered('ds', t, t + 5000, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(await steps.runUncovered('ds', t, t + 6000, async () => 'ran')).toBe('ran');
  });
});
