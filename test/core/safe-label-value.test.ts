import { describe, expect, it } from 'vitest';
import { labelValueErrors } from '../../lib/core/object-names.ts';
import { fnv1a64, safeLabelValue } from '../../lib/core/safe-label-value.ts';

const hashed = /^h-[0-9a-f]{16}$/;

describe('safeLabelValue', () => {
  it.each([
    { name: 'a 1-character name: itself', value: 'a', expected: 'a' },
    {
      name: 'a dotted name: itself',
      value: 'ip-10-0-1-23.ec2.internal',
      expected: 'ip-10-0-1-23.ec2.internal',
    },
    { name: 'a 63-character name: itself', value: 'n'.repeat(63), expected: 'n'.repeat(63) },
    { name: 'a 64-character name: hashed', value: 'n'.repeat(64), expected: hashed },
    {
      name: 'a 253-character name: hashed',
      value: `${'n'.repeat(61)}.`.repeat(4).slice(0, 253),
      expected: hashed,
    },
    {
      name: 'an empty name: hashed, never the empty value that selects unlabelled objects',
      value: '',
      expected: hashed,
    },
  ])('$name', ({ value, expected }) => {
    const label = safeLabelValue(value);
    if (typeof expected === 'string') expect(label).toBe(expected);
    else expect(label).toMatch(expected);
    expect(labelValueErrors(label)).toEqual([]);
  });

  it('is the FNV-1a 64 hash of the name, so names differing in one character differ', () => {
    const long = 'x'.repeat(252);
    expect(safeLabelValue(`${long}a`)).toBe(`h-${fnv1a64(`${long}a`).toString(16).padStart(16, '0')}`);
    expect(safeLabelValue(`${long}a`)).not.toBe(safeLabelValue(`${long}b`));
  });

  it('matches Go hash/fnv New64a', () => {
    // Known vectors of FNV-1a 64: the empty string is the offset basis.
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
  });
});
