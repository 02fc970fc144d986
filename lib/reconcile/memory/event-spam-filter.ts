/**
 * The spam filter of Kubernetes events: client-go tools/record events_cache.go
 * EventSourceObjectSpamFilter (defaultSpamBurst 25, defaultSpamQPS 1/300, an LRU of 4096 keys).
 * Each key gets a token bucket of 25 events refilled at one event per five minutes, so a 5,000-pod
 * rollout records about 25 SuccessfulCreate events, not 5,000.
 */

/** Events a key may record at once (upstream defaultSpamBurst). */
export const SPAM_BURST = 25;
/** Refill rate in events per second (upstream defaultSpamQPS: one every five minutes). */
export const SPAM_REFILL_PER_SECOND = 1 / 300;
/** Keys remembered (upstream maxLruCacheEntries). */
export const SPAM_CACHE_SIZE = 4096;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * A per-process spam filter. The key is the involved object and the reason (upstream keys by
 * source and involved object; the reason is added so that a burst of SuccessfulCreate does not
 * silence a later FailedCreate of the same DaemonSet).
 */
export class EventSpamFilter {
  readonly #buckets = new Map<string, Bucket>();
  #dropped = 0;

  /** True when an event with `key` may be recorded at `nowMs` (and takes its token); false when it is dropped. */
  allow(key: string, nowMs: number): boolean {
    const bucket = this.#bucketFor(key, nowMs);
    const elapsedSeconds = Math.max(0, nowMs - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + elapsedSeconds * SPAM_REFILL_PER_SECOND);
    bucket.updatedAt = nowMs;
    if (bucket.tokens < 1) {
      this.#dropped++;
      return false;
    }
    bucket.tokens -= 1;
    return true;
  }

  /** Events dropped so far by this filter. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The key's bucket, most recently used last, evicting the least recently used beyond the cache size. */
  #bucketFor(key: string, nowMs: number): Bucket {
    const bucket = this.#buckets.get(key) ?? { tokens: SPAM_BURST, updatedAt: nowMs };
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > SPAM_CACHE_SIZE) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    return bucket;
  }
}
