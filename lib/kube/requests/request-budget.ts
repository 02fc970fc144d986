/**
 * The client-side request budget: a token bucket per process (as client-go's `QPS`/`Burst`
 * flowcontrol.NewTokenBucketRateLimiter), so that operators can cap the load everynode puts on
 * their API server whatever the queue's concurrency.
 */

/** Time as the budget sees it; injected so tests can run on a fake clock. */
export interface BudgetClock {
  /** Milliseconds since some fixed origin. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const systemClock: BudgetClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Budget settings: sustained requests per second, and how many may go at once after a quiet spell. */
export interface RequestBudgetOptions {
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly clock?: BudgetClock;
}

/**
 * A token bucket of `burst` tokens refilled at `requestsPerSecond`. Each request takes one token,
 * waiting for it when the bucket is empty; waiting requests are served in arrival order because
 * each reserves its slot synchronously (as golang.org/x/time/rate Reserve does). N requests in a
 * row therefore take at least (N − burst) / requestsPerSecond seconds.
 */
export class RequestBudget {
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly #clock: BudgetClock;
  #tokens: number;
  #updatedAt: number;

  constructor(options: Readonly<RequestBudgetOptions>) {
    if (!(options.requestsPerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError(
        `creating a request budget: requestsPerSecond must be > 0 and burst >= 1 (got ${options.requestsPerSecond}, ${options.burst})`,
      );
    }
    this.requestsPerSecond = options.requestsPerSecond;
    this.burst = options.burst;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = options.burst;
    this.#updatedAt = this.#clock.now();
  }

  /**
   * Reserves a token and resolves when the request may go: at once while the bucket holds tokens,
   * else after the refill of the reserved one. The resolved value is how long it waited, in ms.
   */
  async take(): Promise<number> {
    const now = this.#clock.now();
    const refill = ((now - this.#updatedAt) / 1000) * this.requestsPerSecond;
    this.#tokens = Math.min(this.burst, this.#tokens + refill) - 1;
    this.#updatedAt = now;
    if (this.#tokens >= 0) return 0;
    const waitMs = (-this.#tokens / this.requestsPerSecond) * 1000;
    await this.#clock.sleep(waitMs);
    return waitMs;
  }
}

/**
 * The budget configured by the environment: `KUBE_API_QPS` (default 50) and `KUBE_API_BURST`
 * (default twice the QPS), the names client-go tools use for the same settings.
 */
export function requestBudgetFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): RequestBudget {
  const requestsPerSecond = Number(env.KUBE_API_QPS ?? 50);
  const burst = Number(env.KUBE_API_BURST ?? Math.max(1, Math.ceil(requestsPerSecond * 2)));
  return new RequestBudget({ requestsPerSecond, burst });
}
