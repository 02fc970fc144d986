import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../lib/sim/due-queue.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DueQueue', () => {
  it('runs tasks in due order, not in scheduling order', async () => {
    const queue = new DueQueue();
    const ran: string[] = [];
    const t0 = Date.now();
    for (const [key, delay] of [
      ['c', 30],
      ['a', 5],
      ['b', 15],
    ] as const) {
      queue.schedule(key, t0 + delay, () => ran.push(key));
    }
    await sleep(60);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(0);
  });

  it('keeps the earlier due time when a key is scheduled twice, and runs it once', async () => {
    const queue = new DueQueue();
    const ran: number[] = [];
    const t0 = Date.now();
    queue.schedule('k', t0 + 40, () => ran.push(1));
    queue.schedule('k', t0 + 5, () => ran.push(2));
    queue.schedule('k', t0 + 80, () => ran.push(3));
    await sleep(25);
    expect(ran).toEqual([3]);
    await sleep(80);
    expect(ran).toEqual([3]);
  });

  it('forgets cancelled keys and everything after stop', async () => {
    const queue = new DueQueue();
    const ran: string[] = [];
    queue.schedule('x', Date.now() + 5, () => ran.push('x'));
    queue.schedule('y', Date.now() + 5, () => ran.push('y'));
    expect(queue.cancel('x')).toBe(true);
    await sleep(20);
    queue.stop();
    queue.schedule('z', Date.now(), () => ran.push('z'));
    await sleep(20);
    expect(ran).toEqual(['y']);
  });

  it('works through more due tasks than one batch, and survives a throwing task', async () => {
    const errors: string[] = [];
    const queue = new DueQueue({ batchSize: 3, onError: (key) => errors.push(key) });
    const ran: number[] = [];
    for (let i = 0; i < 10; i++) {
      queue.schedule(`k${i}`, Date.now(), () => {
        if (i === 4) throw new Error('boom');
        ran.push(i);
      });
    }
    await sleep(30);
    expect(ran).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9]);
    expect(errors).toEqual(['k4']);
  });

  it('lets a task schedule follow-up work', async () => {
    const queue = new DueQueue();
    const ran: number[] = [];
    const step = (n: number) => () => {
      ran.push(n);
      if (n < 3) queue.schedule('step', Date.now() + 2, step(n + 1));
    };
    queue.schedule('step', Date.now(), step(1));
    await sleep(40);
    expect(ran).toEqual([1, 2, 3]);
  });
});
