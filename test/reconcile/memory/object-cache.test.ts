/**
 * The reconciler's recent node reads (lib/reconcile/memory/object-cache.ts): single reads and whole node
 * LISTs, each good for RECENT_READ_MS, the later read of a node winning.
 */
import { describe, expect, it } from 'vitest';
import { ObjectCache, RECENT_READ_MS } from '../../../lib/reconcile/memory/object-cache.ts';
import { aNode } from '../../support/builders.ts';

const T = Date.UTC(2026, 0, 1);
const labelled = (name: string, value: string) => aNode(name, { labels: { read: value } });
const readOf = (cache: ObjectCache, name: string, at = T + 1) =>
  cache.recentNode(name, at)?.metadata?.labels?.read;

describe('recent nodes', () => {
  it('keeps every node of a LIST larger than the map of single reads (20,000 nodes)', () => {
    const cache = new ObjectCache();
    const nodes = Array.from({ length: 20_000 }, (_, i) => labelled(`node-${i}`, 'list'));
    cache.putListedNodes(nodes, T);
    expect(nodes.filter((n) => cache.recentNode(n.metadata?.name ?? '', T + 1) === undefined)).toEqual([]);
  });

  it.each([
    { name: 'a single read after the LIST wins', readAt: T + 10, listAt: T, expected: 'get' },
    { name: 'a LIST begun after the single read wins', readAt: T, listAt: T + 10, expected: 'list' },
  ])('$name', ({ readAt, listAt, expected }) => {
    const cache = new ObjectCache();
    cache.putRecentNodes([labelled('n1', 'get')], readAt);
    cache.putListedNodes([labelled('n1', 'list')], listAt);
    expect(readOf(cache, 'n1', T + 20)).toBe(expected);
  });

  it('never replaces a LIST with one begun before it', () => {
    const cache = new ObjectCache();
    cache.putListedNodes([labelled('n1', 'newer')], T + 10);
    cache.putListedNodes([labelled('n1', 'older')], T);
    expect(readOf(cache, 'n1', T + 20)).toBe('newer');
  });

  it('serves neither kind of read once RECENT_READ_MS passed', () => {
    const cache = new ObjectCache();
    cache.putListedNodes([labelled('n1', 'list')], T);
    cache.putRecentNodes([labelled('n2', 'get')], T);
    expect([
      readOf(cache, 'n1', T + RECENT_READ_MS - 1),
      readOf(cache, 'n2', T + RECENT_READ_MS - 1),
    ]).toEqual(['list', 'get']);
    expect([readOf(cache, 'n1', T + RECENT_READ_MS), readOf(cache, 'n2', T + RECENT_READ_MS)]).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe('revision hashes', () => {
  const ds = (annotations?: Record<string, string>) =>
    ({
      metadata: { uid: 'u1', generation: 3, ...(annotations ? { annotations } : {}) },
      status: { collisionCount: 0 },
    }) as never;

  it('survives a status write, not a change of the node-sizing annotation (which moves no generation)', () => {
    const cache = new ObjectCache();
    const sized = (share: string) =>
      ds({
        'everynode.dev/node-sizing': JSON.stringify([{ container: 'a', perAllocatable: { cpu: share } }]),
      });
    cache.putRevisionHash(sized('1%'), 'h1');
    expect(cache.revisionHash(sized('1%'))).toBe('h1');
    expect(cache.revisionHash(sized('2%'))).toBeUndefined();
    cache.putRevisionHash(ds(), 'h0');
    expect(cache.revisionHash(ds({ other: 'x' }))).toBe('h0');
  });
});
