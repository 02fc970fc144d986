/**
 * Deterministic fault injection for the simulated API server: added latency, per-verb error rates
 * (429 with Retry-After, 500, 503), per-User-Agent request-rate limits answered like API Priority
 * and Fairness (429 + Retry-After), dropped watch connections and forced 410 on watches. All
 * randomness comes from one seeded PRNG, so a seed replays the same faults for the same requests.
 */
import { SimApiError } from './schema/api-error.ts';

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An error rate for one verb (or '*' for all). */
export interface ErrorRate {
  /** 429, 500 or 503; or 401, what kube-apiserver answers a token it no longer accepts. */
  status: 401 | 429 | 500 | 503;
  /** Probability in [0, 1] that a request fails. */
  rate: number;
  /** Retry-After seconds for 429 and 503; default 1. */
  retryAfterSeconds?: number;
}

/** A per-User-Agent token bucket. */
export interface UserAgentLimit {
  match: string | RegExp;
  qps: number;
  burst: number;
}

/** What the injector decided for one request. */
export interface FaultDecision {
  /** Milliseconds to wait before handling the request. */
  delayMs: number;
  /** The error to answer with instead of handling the request, if any. */
  error?: SimApiError;
  /** Retry-After header value in seconds, when the error carries one. */
  retryAfterSeconds?: number;
}

interface Bucket {
  readonly limit: UserAgentLimit;
  readonly tokens: Map<string, { tokens: number; at: number }>;
}

/** Faults of one API server; every setting can change at runtime. */
export class FaultInjector {
  private random: () => number;
  private latency = { minMs: 0, maxMs: 0 };
  private readonly errorRates = new Map<string, ErrorRate>();
  private buckets: Bucket[] = [];
  private watchDropRate = 0;
  /** Forced 410s to come, by resource key ('*': of any resource). */
  private readonly goneWatches = new Map<string, number>();
  private readonly dropListeners = new Set<() => void>();

  constructor(
    seed = 1,
    private readonly clock: () => number = () => Date.now(),
  ) {
    this.random = mulberry32(seed);
  }

  /** Restarts the PRNG from `seed`. */
  reseed(seed: number): void {
    this.random = mulberry32(seed);
  }

  /** Adds `minMs`..`maxMs` (uniform) of latency to every request; 0 turns it off. */
  setLatency(minMs: number, maxMs = minMs): void {
    this.latency = { minMs, maxMs: Math.max(minMs, maxMs) };
  }

  /** Fails requests of `verb` ('*' for all) at `rate`; a rate of 0 removes it. */
  setErrorRate(verb: string, errorRate: Readonly<ErrorRate>): void {
    if (errorRate.rate <= 0) this.errorRates.delete(verb);
    else this.errorRates.set(verb, { ...errorRate });
  }

  /** Limits each matching User-Agent to `qps` with bursts of `burst`; returns the function that lifts it. */
  limitPerUserAgent(limit: Readonly<UserAgentLimit>): () => void {
    const bucket: Bucket = { limit: { ...limit }, tokens: new Map() };
    this.buckets.push(bucket);
    return () => {
      this.buckets = this.buckets.filter((b) => b !== bucket);
    };
  }

  /** Closes each watch event's connection with probability `rate` (0 turns it off). */
  setWatchDropRate(rate: number): void {
    this.watchDropRate = rate;
  }

  /**
   * Makes the next `count` watch requests (of the resource `key`, e.g. `apps/daemonsets`, when
   * given) end at once with an ERROR 410 Expired event.
   */
  forceWatchGone(count = 1, key = '*'): void {
    this.goneWatches.set(key, (this.goneWatches.get(key) ?? 0) + count);
  }

  /** Closes every open watch connection now. */
  dropWatches(): void {
    for (const listener of [...this.dropListeners]) listener();
  }

  /** Removes every fault. */
  reset(): void {
    this.latency = { minMs: 0, maxMs: 0 };
    this.errorRates.clear();
    this.buckets = [];
    this.watchDropRate = 0;
    this.goneWatches.clear();
  }

  /** For the server: registers an open watch's close function; returns its removal. */
  onDropWatches(close: () => void): () => void {
    this.dropListeners.add(close);
    return () => this.dropListeners.delete(close);
  }

  /** For the server: whether this watch of resource `key` must end with 410 now (consumes one forced 410). */
  takeForcedGone(key: string): boolean {
    for (const forced of [key, '*']) {
      const left = this.goneWatches.get(forced) ?? 0;
      if (left <= 0) continue;
      this.goneWatches.set(forced, left - 1);
      return true;
    }
    return false;
  }

  /** For the server: whether to drop a watch connection before sending the next event. */
  shouldDropWatch(): boolean {
    return this.watchDropRate > 0 && this.random() < this.watchDropRate;
  }

  /** For the server: the faults for one request. */
  decide(verb: string, userAgent: string): FaultDecision {
    const { minMs, maxMs } = this.latency;
    const delayMs = maxMs > 0 ? minMs + (maxMs - minMs) * this.random() : 0;
    const limited = this.rateLimited(userAgent);
    if (limited !== undefined)
      return { delayMs, error: tooManyRequests(limited), retryAfterSeconds: limited };
    const errorRate = this.errorRates.get(verb) ?? this.errorRates.get('*');
    if (errorRate && this.random() < errorRate.rate) return { delayMs, ...injectedError(errorRate) };
    return { delayMs };
  }

  /** The Retry-After seconds when a token bucket refuses this User-Agent, else undefined. */
  private rateLimited(userAgent: string): number | undefined {
    const now = this.clock();
    for (const bucket of this.buckets) {
      const { match, qps, burst } = bucket.limit;
      if (typeof match === 'string' ? !userAgent.includes(match) : !match.test(userAgent)) continue;
      const state = bucket.tokens.get(userAgent) ?? { tokens: burst, at: now };
      const tokens = Math.min(burst, state.tokens + ((now - state.at) / 1000) * qps);
      if (tokens < 1) {
        bucket.tokens.set(userAgent, { tokens, at: now });
        return Math.max(1, Math.ceil((1 - tokens) / qps));
      }
      bucket.tokens.set(userAgent, { tokens: tokens - 1, at: now });
    }
    return undefined;
  }
}

/** APF's rejection (apiserver/pkg/server/filters/priority-and-fairness.go tooManyRequests). */
function tooManyRequests(retryAfterSeconds: number): SimApiError {
  return new SimApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
    retryAfterSeconds,
  });
}

/** The error an ErrorRate injects. */
function injectedError(errorRate: Readonly<ErrorRate>): { error: SimApiError; retryAfterSeconds?: number } {
  const retryAfterSeconds = errorRate.retryAfterSeconds ?? 1;
  if (errorRate.status === 429) return { error: tooManyRequests(retryAfterSeconds), retryAfterSeconds };
  // The authentication filter's answer (apiserver/pkg/endpoints/handlers/responsewriters Unauthorized).
  if (errorRate.status === 401) return { error: new SimApiError(401, 'Unauthorized', 'Unauthorized') };
  if (errorRate.status === 503) {
    const error = new SimApiError(
      503,
      'ServiceUnavailable',
      'the server is currently unable to handle the request',
      { retryAfterSeconds },
    );
    return { error, retryAfterSeconds };
  }
  return { error: SimApiError.internal('injected fault') };
}
