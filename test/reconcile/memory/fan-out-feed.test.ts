/**
 * The rest of each DaemonSet step's walk the burst cap left unsent, one per DaemonSet: the latest
 * put replaces it, it is dropped FEED_MAX_AGE_MS after it was put, and a drop naming a feed leaves
 * one put since. (test/reconcile/memory/expectations.test.ts covers the basic replace and drop.)
 */
import { describe, expect, it } from 'vitest';
import { FanOutFeeds, FEED_MAX_AGE_MS } from '../../../lib/reconcile/memory/fan-out-feed.ts';

describe('FanOutFeeds', () => {
  it('hands a feed out until FEED_MAX_AGE_MS after it was put, then drops it for good', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'walk', 4, 1_000);
    expect(feeds.get('ds1', 1_000 + FEED_MAX_AGE_MS - 1)).toEqual({
      state: 'walk',
      next: 4,
      installedAt: 1_000,
    });
    expect(feeds.size).toBe(1);
    expect(feeds.get('ds1', 1_000 + FEED_MAX_AGE_MS)).toBeUndefined();
    expect(feeds.size).toBe(0);
    // Dropped, not merely hidden: an earlier time does not bring it back.
    expect(feeds.get('ds1', 1_000)).toBeUndefined();
  });

  it('counts the age from the latest put: a replaced feed is young again', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'first', 0, 0);
    feeds.put('ds1', 'second', 7, FEED_MAX_AGE_MS - 1);
    expect(feeds.get('ds1', FEED_MAX_AGE_MS + 5)).toMatchObject({ state: 'second', next: 7 });
    expect(feeds.size).toBe(1);
  });

  it('keeps one feed per DaemonSet, each aging on its own', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'one', 1, 0);
    feeds.put('ds2', 'two', 2, 5_000);
    expect(feeds.size).toBe(2);
    expect(feeds.get('ds1', FEED_MAX_AGE_MS)).toBeUndefined();
    expect(feeds.get('ds2', FEED_MAX_AGE_MS)).toMatchObject({ state: 'two', next: 2 });
    expect(feeds.get('ds3', 0)).toBeUndefined();
    expect(feeds.size).toBe(1);
  });

  it('keeps where a release left the walk: `next` moved on the handed-out feed stays', () => {
    const feeds = new FanOutFeeds<{ views: number }>();
    feeds.put('ds1', { views: 30 }, 10, 0);
    const feed = feeds.get('ds1', 1);
    if (feed === undefined) throw new Error('no feed');
    feed.next = 20;
    expect(feeds.get('ds1', 2)?.next).toBe(20);
    expect(feeds.get('ds1', 2)?.state).toEqual({ views: 30 });
  });

  it('drops a named feed that is no longer stored as a no-op, and an unknown DaemonSet’s too', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'old', 0, 0);
    const old = feeds.get('ds1', 0);
    feeds.put('ds1', 'new', 0, 1);
    feeds.drop('ds1', old);
    feeds.drop('ds2');
    feeds.drop('ds2', old);
    expect(feeds.get('ds1', 1)?.state).toBe('new');
    const current = feeds.get('ds1', 1);
    feeds.drop('ds1', current);
    expect(feeds.size).toBe(0);
  });
});
