import { describe, expect, it } from 'vitest';
import {
  backoffSeconds,
  FAILURE_BACKOFF_ANNOTATION,
  failedPodDecision,
} from '../../lib/core/failure-backoff.ts';
import { aPod } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const failed = (record: string | undefined, createdSecondsAgo: number) =>
  aPod('p', {
    phase: 'Failed',
    creationTimestamp: ago(createdSecondsAgo),
    ...(record ? { annotations: { [FAILURE_BACKOFF_ANNOTATION]: record } } : {}),
  });

describe('failure backoff', () => {
  it('backs off 1 s doubling to 15 min', () => {
    expect([0, 1, 2, 3, 10, 11, 40].map(backoffSeconds)).toEqual([0, 1, 2, 4, 512, 900, 900]);
  });

  it.each([
    {
      name: 'first failure → replace at once, record 1',
      pod: failed(undefined, 0),
      expected: { kind: 'replace', record: { generation: 7, failures: 1 } },
    },
    {
      name: 'second failure 0.5 s after the first replacement → wait 1 s',
      pod: failed('7/1', 0.5),
      expected: { kind: 'wait', afterSeconds: 1 },
    },
    {
      name: 'fourth failure, backoff 8 s, 3 s in → wait 5 s',
      pod: failed('7/4', 3),
      expected: { kind: 'wait', afterSeconds: 5 },
    },
    {
      name: 'backoff elapsed → replace, count up',
      pod: failed('7/4', 9),
      expected: { kind: 'replace', record: { generation: 7, failures: 5 } },
    },
    { name: 'capped at 15 min', pod: failed('7/30', 899), expected: { kind: 'wait', afterSeconds: 1 } },
    {
      name: 'record of another generation → starts over',
      pod: failed('6/30', 1),
      expected: { kind: 'replace', record: { generation: 7, failures: 1 } },
    },
    {
      name: 'pod older than twice the cap → starts over (upstream hasExpired)',
      pod: failed('7/30', 1801),
      expected: { kind: 'replace', record: { generation: 7, failures: 1 } },
    },
  ])('$name', ({ pod, expected }) => {
    expect(failedPodDecision(pod, 7, NOW)).toEqual(expected);
  });
});
