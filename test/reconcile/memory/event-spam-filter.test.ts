import { describe, expect, it } from 'vitest';
import { EventSpamFilter, SPAM_BURST } from '../../../lib/reconcile/memory/event-spam-filter.ts';

describe('EventSpamFilter', () => {
  it('lets a burst of 25 events per key through, then one per five minutes', () => {
    const filter = new EventSpamFilter();
    const allowed = Array.from({ length: 30 }, () => filter.allow('ds/SuccessfulCreate', 0)).filter(Boolean);
    expect(allowed).toHaveLength(SPAM_BURST);
    expect(filter.dropped).toBe(5);
    expect(filter.allow('ds/SuccessfulCreate', 299_000)).toBe(false);
    expect(filter.allow('ds/SuccessfulCreate', 301_000)).toBe(true);
    expect(filter.allow('ds/FailedCreate', 301_000)).toBe(true);
  });
});
