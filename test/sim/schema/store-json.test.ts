import { describe, expect, it } from 'vitest';
import {
  deepFreeze,
  formatMicroTime,
  formatTime,
  jsonText,
  toWireJson,
} from '../../../lib/sim/schema/store-json.ts';

/** What toWireJson must equal: the JSON text round trip, Dates formatted as metav1 (Micro)Time. */
function byText(value: unknown): unknown {
  const text = JSON.stringify(value, function replacer(this: Record<string, unknown>, key, v) {
    const original = this[key];
    if (original instanceof Date)
      return ['eventTime', 'renewTime', 'acquireTime'].includes(key)
        ? formatMicroTime(original)
        : formatTime(original);
    return v;
  });
  return JSON.parse(text);
}

const at = new Date('2026-03-01T10:00:00.123Z');

describe('toWireJson', () => {
  const cases: { name: string; value: unknown }[] = [
    { name: 'plain object, key order kept', value: { b: 1, a: { d: [1, 'x', true, null], c: {} } } },
    {
      name: 'Dates as Time, MicroTime by field name',
      value: { creationTimestamp: at, eventTime: at, list: [at] },
    },
    { name: 'undefined fields left out, undefined items null', value: { a: undefined, b: [undefined, 1] } },
    { name: 'functions and symbols left out', value: { f: () => 1, s: Symbol('s'), list: [() => 1] } },
    {
      name: 'non-finite numbers null, -0 as 0',
      value: { n: Number.NaN, i: Number.POSITIVE_INFINITY, z: -0 },
    },
    { name: 'toJSON honoured', value: { v: { toJSON: (key: string) => `at ${key}` } } },
    {
      name: 'boxed primitives unboxed',
      value: { s: new String('x'), n: new Number(2), b: new Boolean(false) },
    },
    { name: 'integer-like keys first, as JSON.parse orders them', value: { b: 1, 2: 'two', 1: 'one' } },
    { name: 'own __proto__ key kept as data', value: JSON.parse('{"__proto__":{"x":1},"y":2}') },
    { name: 'frozen input', value: deepFreeze({ a: [{ b: 1 }] }) },
  ];
  it.each(cases)('$name', ({ value }) => {
    const wire = toWireJson(value);
    expect(JSON.stringify(wire)).toBe(JSON.stringify(byText(value)));
    expect(wire).toStrictEqual(byText(value));
    expect(Object.isFrozen(wire)).toBe(false);
  });

  it('throws what JSON.stringify throws for a cycle', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => toWireJson(cyclic)).toThrow(/circular/);
  });
});

describe('jsonText', () => {
  it('is JSON.stringify, for frozen objects again and again', () => {
    const stored = deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    expect(jsonText(stored)).toBe(JSON.stringify(stored));
    expect(jsonText(stored)).toBe(JSON.stringify(stored));
  });

  it('follows changes of objects that are not frozen', () => {
    const draft: Record<string, unknown> = { a: 1 };
    expect(jsonText(draft)).toBe('{"a":1}');
    draft.a = 2;
    expect(jsonText(draft)).toBe('{"a":2}');
  });
});
