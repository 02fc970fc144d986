import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../../lib/sim/storage/merge-patch.ts';

const cases: { name: string; original: unknown; patch: unknown; expected: unknown }[] = [
  {
    name: 'null deletes a member',
    original: { metadata: { labels: { a: '1', b: '2' } } },
    patch: { metadata: { labels: { a: null } } },
    expected: { metadata: { labels: { b: '2' } } },
  },
  {
    name: 'lists are replaced, not merged',
    original: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
    patch: { spec: { containers: [{ name: 'c' }] } },
    expected: { spec: { containers: [{ name: 'c' }] } },
  },
  {
    name: 'new objects lose their null members',
    original: { spec: {} },
    patch: { spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null } } },
    expected: { spec: { updateStrategy: { type: 'OnDelete' } } },
  },
  {
    name: 'a scalar replaces an object',
    original: { spec: { paused: { x: 1 } } },
    patch: { spec: { paused: true } },
    expected: { spec: { paused: true } },
  },
];

describe('mergePatch', () => {
  it.each(cases)('$name', ({ original, patch, expected }) => {
    const before = structuredClone(original);
    expect(mergePatch(original, patch)).toEqual(expected);
    expect(original).toEqual(before);
  });

  it.each([null, [1], 'x'])('refuses the non-object patch %j with 400', (patch) => {
    expect(() => mergePatch({}, patch)).toThrow(
      expect.objectContaining({ status: 400, reason: 'BadRequest' }),
    );
  });
});
