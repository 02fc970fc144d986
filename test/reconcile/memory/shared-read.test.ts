import { describe, expect, it } from 'vitest';
import { SharedRead } from '../../../lib/reconcile/memory/shared-read.ts';

function counter() {
  let now = 1000;
  let reads = 0;
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    read: async () => ++reads,
    get reads() {
      return reads;
    },
  };
}

describe('SharedRead', () => {
  it('shares a read begun after the caller arrived, in flight or done', async () => {
    const c = counter();
    const shared = new SharedRead<number>(c.clock);
    const first = shared.get(1000, c.read);
    const second = shared.get(999, c.read);
    expect(await first).toEqual({ value: 1, startedAt: 1000 });
    expect((await second).value).toBe(1);
    c.advance(50);
    expect((await shared.get(1000, c.read)).value).toBe(1);
    expect(c.reads).toBe(1);
  });

  it('reads again for a caller that arrived after the latest read began', async () => {
    const c = counter();
    const shared = new SharedRead<number>(c.clock);
    await shared.get(1000, c.read);
    c.advance(10);
    expect(await shared.get(1001, c.read)).toEqual({ value: 2, startedAt: 1010 });
    expect((await shared.get(1005, c.read)).value).toBe(2);
    expect(c.reads).toBe(2);
  });

  it('forgets a failed read', async () => {
    const c = counter();
    const shared = new SharedRead<number>(c.clock);
    await expect(shared.get(1000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await shared.get(1000, c.read)).value).toBe(1);
  });

  it('hands out the latest result again while the caller says it is current and it is young enough', async () => {
    const c = counter();
    const shared = new SharedRead<number>(c.clock);
    await shared.get(1000, c.read);
    c.advance(30_000);
    const atLeast = (n: number) => (value: number) => value >= n;
    // Arrived long after the read began, yet nothing it depends on changed: no new read.
    expect(await shared.getUnlessChanged(c.clock(), atLeast(1), 60_000, c.read)).toEqual({
      value: 1,
      startedAt: 1000,
      kept: true,
    });
    // Something changed since (the caller needs a newer value): a read, kept for the next caller.
    expect(await shared.getUnlessChanged(c.clock(), atLeast(2), 60_000, c.read)).toEqual({
      value: 2,
      startedAt: 31_000,
    });
    expect(await shared.getUnlessChanged(c.clock(), atLeast(2), 60_000, c.read)).toMatchObject({
      value: 2,
      kept: true,
    });
    // Older than the bound: read again even though nothing changed.
    c.advance(60_001);
    expect((await shared.getUnlessChanged(c.clock(), atLeast(1), 60_000, c.read)).value).toBe(3);
    expect(c.reads).toBe(3);
  });
});
