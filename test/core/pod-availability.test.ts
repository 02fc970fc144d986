import { describe, expect, it } from 'vitest';
import {
  isPodAvailable,
  isPodReady,
  oldestFirst,
  secondsUntilAvailable,
} from '../../lib/core/pod-availability.ts';
import { aPod } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);

describe('pod availability', () => {
  it.each([
    {
      name: 'not ready',
      pod: aPod('p', { phase: 'Running', ready: false }),
      min: 0,
      ready: false,
      available: false,
    },
    {
      name: 'ready, minReadySeconds 0',
      pod: aPod('p', { phase: 'Running', readySince: NOW }),
      min: 0,
      ready: true,
      available: true,
    },
    {
      name: 'ready 10 s of 30',
      pod: aPod('p', { phase: 'Running', readySince: ago(10) }),
      min: 30,
      ready: true,
      available: false,
    },
    {
      name: 'ready exactly 30 s of 30 (strictly before)',
      pod: aPod('p', { phase: 'Running', readySince: ago(30) }),
      min: 30,
      ready: true,
      available: false,
    },
    {
      name: 'ready 31 s of 30',
      pod: aPod('p', { phase: 'Running', readySince: ago(31) }),
      min: 30,
      ready: true,
      available: true,
    },
  ])('$name', ({ pod, min, ready, available }) => {
    expect([isPodReady(pod), isPodAvailable(pod, min, NOW)]).toEqual([ready, available]);
  });

  it('secondsUntilAvailable lands just after the moment it becomes available', () => {
    const pod = aPod('p', { phase: 'Running', readySince: ago(10) });
    const wait = secondsUntilAvailable(pod, 30, NOW) ?? 0;
    expect(wait).toBe(21);
    expect(isPodAvailable(pod, 30, new Date(NOW.getTime() + wait * 1000))).toBe(true);
  });

  it('oldestFirst: scheduled first, then creationTimestamp, then name', () => {
    const pods = [
      aPod('c', { nodeName: 'n', creationTimestamp: ago(5) }),
      aPod('b', { nodeName: 'n', creationTimestamp: ago(5) }),
      aPod('unscheduled', { creationTimestamp: ago(100) }),
      aPod('a', { nodeName: 'n', creationTimestamp: ago(1) }),
      aPod('old', { nodeName: 'n', creationTimestamp: ago(50) }),
    ];
    expect(oldestFirst(pods).map((p) => p.metadata?.name)).toEqual(['old', 'b', 'c', 'a', 'unscheduled']);
  });
});
