import { describe, expect, it } from 'vitest';
import { Expectations, FAN_OUT_MEMORY_MS, pairKey } from '../../../lib/reconcile/memory/expectations.ts';
import { FanOutFeeds, FEED_MAX_AGE_MS } from '../../../lib/reconcile/memory/fan-out-feed.ts';

describe('Expectations: outstanding fan-outs (what the burst cap counts)', () => {
  const create = { creates: 1, deletes: 0 };
  const remove = { creates: 0, deletes: 1 };

  it('counts the creates and deletes fanned out per DaemonSet until each pair is handled', () => {
    const e = new Expectations();
    e.markFannedOut(pairKey('ds1', 'n1'), 'i1', 0, create);
    e.markFannedOut(pairKey('ds1', 'n2'), 'i2', 0, remove);
    e.markFannedOut(pairKey('ds2', 'n1'), 'i3', 0, create);
    expect(e.outstanding('ds1', 10)).toEqual({ creates: 1, deletes: 1 });
    expect(e.outstandingNodes('ds1').sort()).toEqual(['n1', 'n2']);
    e.handledPair(pairKey('ds1', 'n1'), 20);
    expect(e.outstanding('ds1', 30)).toEqual({ creates: 0, deletes: 1 });
    expect(e.outstanding('ds2', 30)).toEqual({ creates: 1, deletes: 0 });
  });

  it('stops counting a fan-out once a step sees the pair in another state, or it expires', () => {
    const e = new Expectations();
    e.markFannedOut(pairKey('ds1', 'n1'), 'i1', 0, create);
    e.markFannedOut(pairKey('ds1', 'n2'), 'i2', 0, create);
    e.settleFanOut(pairKey('ds1', 'n1'), 'i1');
    expect(e.outstanding('ds1', 1)).toEqual({ creates: 2, deletes: 0 });
    e.settleFanOut(pairKey('ds1', 'n1'), undefined);
    expect(e.outstanding('ds1', 1)).toEqual({ creates: 1, deletes: 0 });
    expect(e.fannedOut(pairKey('ds1', 'n1'), 'i1', 1, 0)).toBe(false);
    expect(e.outstanding('ds1', FAN_OUT_MEMORY_MS)).toEqual({ creates: 0, deletes: 0 });
    expect(e.outstandingNodes('ds1')).toEqual([]);
  });

  it('forgets a fan-out whose message was never sent', () => {
    const e = new Expectations();
    e.markFannedOut(pairKey('ds1', 'n1'), 'i1', 0, create);
    e.forgetFanOut(pairKey('ds1', 'n1'));
    expect(e.outstanding('ds1', 1)).toEqual({ creates: 0, deletes: 0 });
    expect(e.fannedOut(pairKey('ds1', 'n1'), 'i1', 1, 0)).toBe(false);
  });
});

describe('FanOutFeeds', () => {
  it('keeps the latest step’s feed per DaemonSet until it is too old', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'first', 3, 0);
    feeds.put('ds1', 'second', 5, 100);
    expect(feeds.get('ds1', 200)).toMatchObject({ state: 'second', next: 5 });
    expect(feeds.get('ds1', 100 + FEED_MAX_AGE_MS)).toBeUndefined();
    expect(feeds.size).toBe(0);
  });

  it('drops a given feed only while it is still the latest', () => {
    const feeds = new FanOutFeeds<string>();
    feeds.put('ds1', 'first', 0, 0);
    const first = feeds.get('ds1', 1);
    feeds.put('ds1', 'second', 0, 2);
    feeds.drop('ds1', first);
    expect(feeds.get('ds1', 3)?.state).toBe('second');
    feeds.drop('ds1');
    expect(feeds.get('ds1', 3)).toBeUndefined();
  });
});
