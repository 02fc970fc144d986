import { describe, expect, it } from 'vitest';
import { allowsSurge, rolloutBudget, scaledValue } from '../../../lib/core/rolling-update/budget.ts';
import { aDaemonSet } from '../../support/builders.ts';

describe('rollout budget', () => {
  it.each([
    { value: 3, total: 10, roundUp: true, expected: 3 },
    { value: '25%', total: 10, roundUp: true, expected: 3 },
    { value: '25%', total: 10, roundUp: false, expected: 2 },
    { value: '100%', total: 7, roundUp: true, expected: 7 },
    { value: '1%', total: 1, roundUp: true, expected: 1 },
    { value: '0%', total: 50, roundUp: true, expected: 0 },
    { value: 'ten', total: 10, roundUp: true, expected: undefined },
  ])('scaledValue($value of $total, roundUp $roundUp) = $expected', ({ value, total, roundUp, expected }) => {
    expect(scaledValue(value, total, roundUp)).toBe(expected);
  });

  it.each([
    {
      name: 'defaults',
      strategy: undefined,
      desired: 5,
      expected: { maxSurge: 0, maxUnavailable: 1 },
      surge: false,
    },
    {
      name: 'surge percent',
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: 0 } },
      desired: 25,
      expected: { maxSurge: 3, maxUnavailable: 0 },
      surge: true,
    },
    {
      name: 'OnDelete: both counts 0, so the upstream fallback maxUnavailable 1 applies',
      strategy: { type: 'OnDelete' },
      desired: 5,
      expected: { maxSurge: 0, maxUnavailable: 1 },
      surge: false,
    },
    {
      name: 'no nodes, no budget',
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%' } },
      desired: 0,
      expected: { maxSurge: 0, maxUnavailable: 0 },
      surge: false,
    },
  ])('$name', ({ strategy, desired, expected, surge }) => {
    const ds = aDaemonSet('a', strategy ? { updateStrategy: strategy } : {});
    expect(rolloutBudget(ds, desired)).toEqual(expected);
    expect(allowsSurge(ds)).toBe(surge);
  });
});
