/**
 * The bounded map behind the per-process memory: at most `size` entries, the least recently used
 * (set or read) evicted first; listing the values does not count as a use.
 */
import { describe, expect, it } from 'vitest';
import { Lru } from '../../../lib/reconcile/memory/lru.ts';

/** An Lru of `size` with `keys` set in order, each to its own name. */
function lruOf(size: number, ...keys: string[]): Lru<string> {
  const lru = new Lru<string>(size);
  for (const key of keys) lru.set(key, key);
  return lru;
}

describe('Lru', () => {
  it('answers undefined for a key never set, and the value for one that was', () => {
    const lru = lruOf(4, 'a');
    expect(lru.get('a')).toBe('a');
    expect(lru.get('b')).toBeUndefined();
  });

  it('keeps at most `size` entries, evicting the least recently set', () => {
    const lru = lruOf(2, 'a', 'b', 'c');
    expect(lru.get('a')).toBeUndefined();
    expect(lru.values()).toEqual(['b', 'c']);
  });

  it('counts a read as a use: the entry read last is not the one evicted', () => {
    const lru = lruOf(2, 'a', 'b');
    expect(lru.get('a')).toBe('a');
    lru.set('c', 'c');
    expect(lru.get('b')).toBeUndefined();
    expect(lru.values()).toEqual(['a', 'c']);
  });

  it('replaces the value of a key set again, making it the most recent, without evicting anything', () => {
    const lru = lruOf(2, 'a', 'b');
    lru.set('a', 'a2');
    expect(lru.values()).toEqual(['b', 'a2']);
    lru.set('c', 'c');
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('a2');
  });

  it('lists the values least recently used first, and listing them changes no order', () => {
    const lru = lruOf(3, 'a', 'b', 'c');
    lru.get('a');
    expect(lru.values()).toEqual(['b', 'c', 'a']);
    expect(lru.values()).toEqual(['b', 'c', 'a']);
    lru.set('d', 'd');
    expect(lru.values()).toEqual(['c', 'a', 'd']);
  });

  it('forgets a deleted key, which frees its place', () => {
    const lru = lruOf(2, 'a', 'b');
    lru.delete('a');
    lru.delete('never-set');
    expect(lru.get('a')).toBeUndefined();
    lru.set('c', 'c');
    expect(lru.values()).toEqual(['b', 'c']);
  });

  it('holds falsy values like any other', () => {
    const lru = new Lru<number | boolean | string>(3);
    lru.set('zero', 0);
    lru.set('false', false);
    lru.set('empty', '');
    expect([lru.get('zero'), lru.get('false'), lru.get('empty')]).toEqual([0, false, '']);
  });

  it('stays within its bound over many writes', () => {
    const lru = new Lru<number>(100);
    for (let i = 0; i < 1_000; i++) lru.set(`k${i}`, i);
    expect(lru.values()).toHaveLength(100);
    expect(lru.values()[0]).toBe(900);
    expect(lru.get('k899')).toBeUndefined();
    expect(lru.get('k999')).toBe(999);
  });
});
