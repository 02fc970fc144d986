/**
 * The simulated AWS Lambda under the relay hand-over model (relay-handover-model.ts): simulated
 * time, seeded random streams, and one function's asynchronous invocations with reserved
 * concurrency, execution environments (cold and warm starts), throttling with the async queue's
 * retries, and retries after a function error. All times are milliseconds of simulated time.
 */
import { mulberry32 } from '../../lib/sim/faults.ts';

/** A discrete-event clock: callbacks run in time order (ties in the order they were scheduled). */
export class EventClock {
  now = 0;
  private readonly queue: { readonly at: number; readonly run: () => void }[] = [];

  /** Runs `run` at `at` (never before now). */
  at(at: number, run: () => void): void {
    const entry = { at: Math.max(at, this.now), run };
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.queue[middle]?.at ?? Infinity) <= entry.at) low = middle + 1;
      else high = middle;
    }
    this.queue.splice(low, 0, entry);
  }

  /** Runs every callback due up to `until`, then sets the clock to `until`. */
  runUntil(until: number): void {
    for (let next = this.queue[0]; next !== undefined && next.at <= until; next = this.queue[0]) {
      this.queue.shift();
      this.now = next.at;
      next.run();
    }
    this.now = until;
  }
}

/** The model's random inputs, one seeded stream each, so both designs see the same draws. */
export interface RandomStreams {
  readonly coldStart: () => number;
  readonly recycle: () => number;
  readonly list: () => number;
  readonly delivery: () => number;
  readonly stop: () => number;
  readonly crash: () => number;
  readonly jitter: () => number;
  readonly lost: () => number;
}

/** Independent streams derived from `seed`. */
export function randomStreams(seed: number): RandomStreams {
  const seeds = mulberry32(seed);
  const next = () => mulberry32(Math.floor(seeds() * 2 ** 32));
  return {
    coldStart: next(),
    recycle: next(),
    list: next(),
    delivery: next(),
    stop: next(),
    crash: next(),
    jitter: next(),
    lost: next(),
  };
}

/** A log-normal draw with the given median and 99th percentile (0 when the median is 0). */
export function logNormal(random: () => number, median: number, p99: number): number {
  const u1 = Math.max(random(), Number.MIN_VALUE);
  const u2 = random();
  if (median <= 0) return 0;
  const sigma = Math.log(p99 / median) / 2.3263;
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return median * Math.exp(sigma * z);
}

/** A uniform draw in [min, max]. */
export function uniform(random: () => number, min: number, max: number): number {
  return min + (max - min) * random();
}

/** How the simulated Lambda behaves. */
export interface LambdaModel {
  readonly reservedConcurrency: number;
  readonly coldStartMedianMs: number;
  readonly coldStartP99Ms: number;
  readonly warmStartMs: number;
  /** An idle execution environment is reclaimed after this long. */
  readonly idleKeepMs: number;
  /** Share of invocations that find their idle environment recycled (a cold start regardless). */
  readonly recycledShare: number;
  /** EventBridge and async-queue delivery delay: uniform in [0, this]. */
  readonly deliveryMaxMs: number;
  /** 'full': a throttled retry waits U(0, min(300 s, 1 s·2^(n−1))); 'none': exactly that bound. */
  readonly jitter: 'full' | 'none';
}

/** An asynchronous invocation's event, as Lambda's queue keeps it. */
export interface AsyncEvent {
  /** The request id, kept by every retry of the event. */
  readonly id: string;
  readonly payload: unknown;
  readonly sentAt: number;
  throttles: number;
  errorRetries: number;
}

/** One accepted invocation, holding a concurrency slot until released. */
export interface Invocation {
  readonly event: AsyncEvent;
  readonly acceptedAt: number;
  readonly cold: boolean;
  released: boolean;
}

/** What the simulated Lambda counted. */
export interface LambdaCounts {
  sent: number;
  accepted: number;
  throttled: number;
  expired: number;
  coldStarts: number;
  errorRetries: number;
}

const MAX_EVENT_AGE_MS = 6 * 3600_000;
const MAX_THROTTLE_RETRY_MS = 300_000;
const ERROR_RETRY_DELAYS_MS = [60_000, 120_000];

/** One function with reserved concurrency, invoked asynchronously. */
export class SimulatedLambda {
  readonly counts: LambdaCounts = {
    sent: 0,
    accepted: 0,
    throttled: 0,
    expired: 0,
    coldStarts: 0,
    errorRetries: 0,
  };
  private busy = 0;
  private idleSince: number[] = [];
  private nextId = 0;

  constructor(
    private readonly clock: EventClock,
    private readonly model: LambdaModel,
    private readonly random: RandomStreams,
    /** The handler, called once the environment is ready (after the cold or warm start). */
    private readonly handler: (invocation: Invocation) => void,
  ) {}

  /** Sends `payload` asynchronously at the clock's now; returns its request id. */
  send(payload: unknown): string {
    const event: AsyncEvent = {
      id: `r${++this.nextId}`,
      payload,
      sentAt: this.clock.now,
      throttles: 0,
      errorRetries: 0,
    };
    this.counts.sent++;
    this.clock.at(this.clock.now + uniform(this.random.delivery, 0, this.model.deliveryMaxMs), () =>
      this.attempt(event),
    );
    return event.id;
  }

  /** Frees the invocation's slot at `at` (its environment idle from then). */
  release(invocation: Invocation, at: number): void {
    if (invocation.released) return;
    invocation.released = true;
    this.clock.at(at, () => {
      this.busy--;
      this.idleSince.push(this.clock.now);
    });
  }

  /** The handler failed now: the slot is freed, and Lambda retries the event after 1 then 2 min. */
  fail(invocation: Invocation): void {
    this.release(invocation, this.clock.now);
    const { event } = invocation;
    const delay = ERROR_RETRY_DELAYS_MS[event.errorRetries];
    if (delay === undefined) return;
    event.errorRetries++;
    event.throttles = 0;
    this.counts.errorRetries++;
    this.clock.at(this.clock.now + delay, () => this.attempt(event));
  }

  private attempt(event: AsyncEvent): void {
    const now = this.clock.now;
    if (now - event.sentAt > MAX_EVENT_AGE_MS) {
      this.counts.expired++;
      return;
    }
    if (this.busy >= this.model.reservedConcurrency) {
      this.counts.throttled++;
      event.throttles++;
      const bound = Math.min(MAX_THROTTLE_RETRY_MS, 1000 * 2 ** (event.throttles - 1));
      const wait = this.model.jitter === 'full' ? bound * this.random.jitter() : bound;
      this.clock.at(now + wait, () => this.attempt(event));
      return;
    }
    this.busy++;
    this.counts.accepted++;
    const cold = !this.takeWarmEnvironment(now);
    if (cold) this.counts.coldStarts++;
    const startMs = cold
      ? logNormal(this.random.coldStart, this.model.coldStartMedianMs, this.model.coldStartP99Ms)
      : this.model.warmStartMs;
    const invocation: Invocation = { event, acceptedAt: now, cold, released: false };
    this.clock.at(now + startMs, () => this.handler(invocation));
  }

  /** Takes the most recently idle environment still kept, unless it was recycled. */
  private takeWarmEnvironment(now: number): boolean {
    this.idleSince = this.idleSince.filter((since) => now - since < this.model.idleKeepMs);
    if (this.idleSince.length === 0) return false;
    this.idleSince.pop();
    return this.random.recycle() >= this.model.recycledShare;
  }
}
