import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  fnv1a32,
  safeEncodeString,
  stableJson,
  templateHash,
} from '../../lib/core/template-hash.ts';
import { aDaemonSet } from '../support/builders.ts';

const template = (image = 'busybox:1.36'): V1PodTemplateSpec =>
  aDaemonSet('d', { image }).spec?.template ?? {};
const bytes = (s: string) => new TextEncoder().encode(s);

/** `value` rebuilt with every object's keys inserted in a different order, chosen by `seed`. */
function deepShuffle(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => deepShuffle(item, seed + i + 1));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const keys = Object.keys(value);
  const rotated = keys.map((_, i) => keys[(i + seed) % keys.length] as string);
  const ordered = seed % 2 === 0 ? rotated.reverse() : rotated;
  const result: Record<string, unknown> = {};
  for (const key of ordered)
    result[key] = deepShuffle((value as Record<string, unknown>)[key], seed * 31 + key.length);
  return result;
}

const anyTemplate = fc
  .record({
    metadata: fc.record({ labels: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })) }),
    spec: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 })),
  })
  .map((value) => value as unknown as V1PodTemplateSpec);

describe('fnv1a32', () => {
  it.each([
    { input: '', expected: 0x811c9dc5 },
    { input: 'a', expected: 0xe40c292c },
    { input: 'foobar', expected: 0xbf9cf968 },
  ])('matches the FNV-1a 32 reference value for "$input"', ({ input, expected }) => {
    expect(fnv1a32(bytes(input))).toBe(expected);
  });
});

describe('safeEncodeString', () => {
  it.each([
    { input: '0123456789', expected: '456789bcdf' },
    { input: '4294967295', expected: '86f8fbc6f9' },
  ])('maps "$input" into the upstream alphabet', ({ input, expected }) => {
    expect(safeEncodeString(input)).toBe(expected);
  });
});

describe('stableJson', () => {
  it.each([
    {
      name: 'sorts keys at every depth',
      value: { b: 1, a: { d: 2, c: 3 } },
      expected: '{"a":{"c":3,"d":2},"b":1}',
    },
    {
      name: 'sorts integer-like keys as strings',
      value: { b: 1, 10: 2, 9: 3 },
      expected: '{"10":2,"9":3,"b":1}',
    },
    { name: 'drops undefined members', value: { a: undefined, b: null }, expected: '{"b":null}' },
    {
      name: 'writes Dates as RFC 3339 seconds',
      value: { t: new Date('2026-01-02T03:04:05.678Z') },
      expected: '{"t":"2026-01-02T03:04:05Z"}',
    },
    { name: 'keeps array order', value: [3, 1, 2], expected: '[3,1,2]' },
  ])('$name', ({ value, expected }) => {
    expect(stableJson(value)).toBe(expected);
  });

  it('canonicalJson gives the same value a JSON round trip would, Dates converted', () => {
    expect(canonicalJson({ a: [1, undefined], t: new Date('2026-01-01T00:00:00Z') })).toEqual({
      a: [1, null],
      t: '2026-01-01T00:00:00Z',
    });
  });
});

describe('templateHash', () => {
  it('is a pure function of the template: the same value twice, only alphabet characters', () => {
    expect(templateHash(template())).toBe(templateHash(template()));
    expect(templateHash(template())).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });

  it.each([
    { name: 'image changes', other: template('busybox:1.37') },
    { name: 'a label is added', other: { ...template(), metadata: { labels: { app: 'd', tier: 'x' } } } },
  ])('changes when $name', ({ other }) => {
    expect(templateHash(other)).not.toBe(templateHash(template()));
  });

  it.each([
    { name: 'no count vs 0 (upstream mixes a non-nil count in)', a: undefined, b: 0 },
    { name: '0 vs 1', a: 0, b: 1 },
    { name: '1 vs 2', a: 1, b: 2 },
  ])('differs by collisionCount: $name', ({ a, b }) => {
    expect(templateHash(template(), a)).not.toBe(templateHash(template(), b));
  });

  it('treats a Date and its RFC 3339 string alike (objects read back from the API server)', () => {
    const withDate = {
      metadata: { creationTimestamp: new Date('2026-01-01T00:00:00Z') },
      spec: template().spec,
    };
    const withString = {
      metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: template().spec,
    } as unknown as V1PodTemplateSpec;
    expect(templateHash(withDate)).toBe(templateHash(withString));
  });

  it('treats a null member as unset (Go writes zero creationTimestamp as null)', () => {
    const withNull = { ...template(), metadata: { ...template().metadata, creationTimestamp: null } };
    expect(templateHash(withNull as unknown as V1PodTemplateSpec)).toBe(templateHash(template()));
  });

  it('property: unchanged when object keys are reordered at any depth', () => {
    fc.assert(
      fc.property(
        anyTemplate,
        fc.nat(1000),
        fc.option(fc.nat(5), { nil: undefined }),
        (value, seed, count) => {
          const shuffled = deepShuffle(value, seed) as V1PodTemplateSpec;
          expect(templateHash(shuffled, count)).toBe(templateHash(value, count));
        },
      ),
    );
  });

  it('property: changes when a field value changes', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(templateHash(template(a))).not.toBe(templateHash(template(b)));
      }),
    );
  });
});
