import { describe, expect, it } from 'vitest';
import {
  compareQuantities,
  formatQuantity,
  parsePercent,
  parseQuantity,
} from '../../../lib/core/node-sizing/quantity.ts';

describe('parseQuantity and formatQuantity', () => {
  it.each([
    ['150m', '150m'],
    ['0.15', '150m'],
    ['1.5', '1500m'],
    ['2', '2'],
    ['2000m', '2'],
    ['1000', '1k'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['4096Mi', '4Gi'],
    ['128M', '128M'],
    ['128000000', '128M'],
    ['512', '512'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['.5', '500m'],
    ['1.', '1'],
    ['0', '0'],
    ['0Mi', '0'],
    ['100n', '100n'],
    ['0.5Ki', '512'],
  ])('%s prints as %s', (text, canonical) => {
    const q = parseQuantity(text);
    expect(q).toBeDefined();
    expect(formatQuantity(q ?? { num: 0n, den: 1n, format: 'DecimalSI' })).toBe(canonical);
  });

  it.each(['', 'abc', '1.2.3', '5 Mi', '1mi', '1KiB', '-1', '-5m', 'Mi', '1e', '--1', 'e3', '1%'])(
    'refuses %j',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  it('reads JSON numbers as their decimal text', () => {
    expect(formatQuantity(parseQuantity(0.25) ?? { num: 0n, den: 1n, format: 'DecimalSI' })).toBe('250m');
  });

  it('compares by value across formats', () => {
    const [a, b, c] = ['1Gi', '1073741824', '1G'].map((t) => parseQuantity(t));
    if (!a || !b || !c) throw new Error('unparsed');
    expect(compareQuantities(a, b)).toBe(0);
    expect(compareQuantities(c, a)).toBe(-1);
    expect(compareQuantities(a, c)).toBe(1);
  });
});

describe('parsePercent', () => {
  it.each([
    ['0.5%', { num: 1n, den: 200n }],
    ['100%', { num: 1n, den: 1n }],
    ['1.1%', { num: 11n, den: 1000n }],
    ['.5%', { num: 1n, den: 200n }],
  ])('%s is an exact fraction', (text, fraction) => {
    expect(parsePercent(text)).toEqual(fraction);
  });

  it.each(['5', '5 %', '-1%', 'x%', '%', 5])('refuses %j', (text) => {
    expect(parsePercent(text)).toBeUndefined();
  });
});
