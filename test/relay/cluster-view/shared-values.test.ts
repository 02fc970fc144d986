/**
 * The relay's `Interner`: one shared, frozen copy of each distinct JSON value (equal when their JSON
 * text is), string maps copied with their values shared, and tables bounded by starting over. (A
 * string's sharing cannot be seen from JavaScript, where equal strings are the same value: its
 * tests check what it answers.) Also in pod-record.test.ts: equal values share, key order counts.
 */
import { describe, expect, it } from 'vitest';
import {
  Interner,
  MAX_INTERNED_STRINGS,
  MAX_INTERNED_VALUES,
} from '../../../lib/relay/cluster-view/shared-values.ts';

const controllerRef = (uid: string) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid });

describe('Interner', () => {
  it('passes undefined through, and answers each string with an equal one', () => {
    const interner = new Interner();
    expect(interner.string(undefined)).toBeUndefined();
    expect(interner.value(undefined)).toBeUndefined();
    expect(interner.stringMap(undefined)).toBeUndefined();
    expect(interner.string('n1')).toBe('n1');
    expect(interner.string(['n', '1'].join(''))).toBe('n1');
    expect(interner.string('')).toBe('');
  });

  it('shares one frozen copy of its first level: later changes to the original do not reach it', () => {
    const interner = new Interner();
    const mine = controllerRef('ds-1');
    const shared = interner.value(mine);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(() => {
      (shared as { uid: string }).uid = 'changed';
    }).toThrow(TypeError);
    mine.uid = 'ds-2';
    expect(shared.uid).toBe('ds-1');
    expect(interner.value(controllerRef('ds-1'))).toBe(shared);
    // The original, changed, is another value: a copy of its own.
    const other = interner.value(mine);
    expect(other).not.toBe(shared);
    expect(other).toEqual(controllerRef('ds-2'));
  });

  it('copies arrays as arrays, told apart from objects of the same entries by their JSON text', () => {
    const interner = new Interner();
    const kinds = [
      ['Ready', 'True'],
      ['PodScheduled', 'True'],
    ];
    const shared = interner.value(kinds);
    expect(Array.isArray(shared)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(shared).not.toBe(kinds);
    expect(shared).toEqual(kinds);
    expect(interner.value(structuredClone(kinds))).toBe(shared);
    const alike = interner.value({ 0: ['Ready', 'True'], 1: ['PodScheduled', 'True'] });
    expect(Array.isArray(alike)).toBe(false);
    expect(alike).not.toBe(shared);
  });

  it('copies a string map whole, in its key order, unfrozen, the original untouched', () => {
    const interner = new Interner();
    const labels = { app: 'agent', 'everynode.dev/node': 'n1', 'controller-revision-hash': 'abc' };
    const copy = interner.stringMap(labels);
    expect(copy).toEqual(labels);
    expect(copy).not.toBe(labels);
    expect(Object.keys(copy ?? {})).toEqual(Object.keys(labels));
    expect(Object.isFrozen(copy)).toBe(false);
    // Maps are copies of their own each time, equal or not: one pod's labels never become another's.
    const again = interner.stringMap({ ...labels });
    expect(again).not.toBe(copy);
    expect(again).toEqual(copy);
    (copy as Record<string, string>).app = 'changed';
    expect(labels.app).toBe('agent');
    expect(interner.stringMap({})).toEqual({});
  });

  it(`keeps ${MAX_INTERNED_VALUES} values, and forgets them all at the next new one`, () => {
    const interner = new Interner();
    const first = interner.value({ n: 0 });
    for (let n = 1; n < MAX_INTERNED_VALUES; n++) interner.value({ n });
    // The table is full, not past its bound: every value still shared.
    expect(interner.value({ n: 0 })).toBe(first);
    const last = interner.value({ n: MAX_INTERNED_VALUES - 1 });
    expect(interner.value({ n: MAX_INTERNED_VALUES - 1 })).toBe(last);
    // One more distinct value starts over: the earlier copies stay valid, shared no more.
    const fresh = interner.value({ n: MAX_INTERNED_VALUES });
    expect(interner.value({ n: MAX_INTERNED_VALUES })).toBe(fresh);
    const again = interner.value({ n: 0 });
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(interner.value({ n: MAX_INTERNED_VALUES - 1 })).not.toBe(last);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it(`keeps answering past ${MAX_INTERNED_STRINGS} strings, its values kept apart from its strings`, () => {
    const interner = new Interner();
    const shared = interner.value(controllerRef('ds-1'));
    let wrong = 0;
    for (let n = 0; n <= MAX_INTERNED_STRINGS; n++) if (interner.string(`node-${n}`) !== `node-${n}`) wrong++;
    expect(wrong).toBe(0);
    expect(interner.string('node-0')).toBe('node-0');
    // Starting over on strings forgets no value.
    expect(interner.value(controllerRef('ds-1'))).toBe(shared);
  });
});
