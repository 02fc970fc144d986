/**
 * The relay's outbox: collects triggers for a few milliseconds and publishes them in batches, a few
 * at once, and keeps track of how far every watch is safely published — the resourceVersions a
 * checkpoint may name.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryable } from '../../errors/everynode-error.ts';
import type { TriggeringResource } from '../../kube/kube-port.ts';
import { type BusEvent, busEventBytes, type EventBus, MAX_BUS_EVENT_BYTES } from '../../queue/event-bus.ts';

/** How far each watch has got: the resourceVersion of its last event or bookmark. */
export type WatchPositions = Partial<Record<TriggeringResource, string>>;

/** Options of {@link RelayPublisher}. */
export interface RelayPublisherOptions {
  readonly bus: EventBus;
  /** How long the first trigger of a batch waits for others (default 5 ms): latency vs. batch size. */
  readonly lingerMs?: number;
  /**
   * Batches on their way to the bus at once (default {@link PUBLISH_CONCURRENCY}): triggers queued
   * behind a slow batch start their own instead of waiting for it.
   */
  readonly maxInFlight?: number;
  /** Called once per published batch with its size. */
  readonly onPublished?: (count: number) => void;
  /** Called when publishing a batch failed and will be tried again. */
  readonly onRetry?: (error: unknown, attempt: number) => void;
  /**
   * Called for each event too large for the bus ({@link MAX_BUS_EVENT_BYTES}), which is skipped,
   * not published: with its object ({@link skippedObjectOf}) and size.
   */
  readonly onSkipped?: (object: SkippedObject, bytes: number) => void;
}

/** What a skipped event was about, for its log line. */
export interface SkippedObject {
  readonly detailType: string;
  readonly kind?: string;
  /** `namespace/name`, or the name of a cluster-scoped object. */
  readonly object?: string;
}

/** The object `event` (a watch trigger, usually) is about. */
export function skippedObjectOf(event: Readonly<BusEvent>): SkippedObject {
  const { kind, namespace, name } = event.detail as { kind?: unknown; namespace?: unknown; name?: unknown };
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const object = text(namespace) && text(name) ? `${namespace}/${name}` : text(name);
  return {
    detailType: event.detailType,
    ...(text(kind) ? { kind: text(kind) } : {}),
    ...(object ? { object } : {}),
  };
}

/** Batches published at once by default. */
export const PUBLISH_CONCURRENCY = 4;

/** Attempts to publish one batch before the relay gives up (and the next relay resumes). */
export const PUBLISH_ATTEMPTS = 6;

/**
 * Batches triggers onto the bus, up to `maxInFlight` batches at once: the bus keeps no order
 * between events anyway (the ingress queue is a standard queue), so a batch need not wait for the
 * one before it. `positions` only ever moves to versions whose triggers the bus has accepted (or
 * that produced none) — past a batch only once every batch started before it is on the bus — so
 * checkpointing it never skips an event.
 */
export class RelayPublisher {
  private pending: BusEvent[] = [];
  private readonly seen: WatchPositions = {};
  private safe: WatchPositions = {};
  /** The positions the last batch started with. */
  private started: WatchPositions = {};
  /** The batches started and not yet all on the bus, oldest first, with the positions each reaches. */
  private readonly order: { readonly upTo: WatchPositions; done: boolean }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  /** A queued event is urgent: the next batch starts without lingering. */
  private urgent = false;
  private error: unknown;

  constructor(private readonly options: Readonly<RelayPublisherOptions>) {}

  /** The positions safe to checkpoint: every trigger up to them is on the bus. */
  get positions(): Readonly<WatchPositions> {
    return this.safe;
  }

  /** The error that stopped publishing, if any (the relay then stops: the next run resumes). */
  get failure(): unknown {
    return this.error;
  }

  /**
   * Queues `event` (when given) and moves `resource`'s position to `resourceVersion`. An `urgent`
   * event (one a node readiness gate waits for) does not linger: its batch starts at once, or as
   * soon as a batch in flight leaves room.
   */
  add(
    event: BusEvent | undefined,
    resource?: TriggeringResource,
    resourceVersion?: string,
    urgent = false,
  ): void {
    if (resource !== undefined && resourceVersion !== undefined) this.seen[resource] = resourceVersion;
    if (event !== undefined) this.pending.push(event);
    if (urgent && event !== undefined) this.urgent = true;
    this.schedule();
  }

  /** Publishes everything queued so far; resolves when it is on the bus, rejects if publishing failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (;;) {
      if (this.error !== undefined) throw this.error;
      if (this.hasWork() && this.inFlight.size < this.maxInFlight) this.startBatch();
      else if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else return;
    }
  }

  private get maxInFlight(): number {
    return Math.max(1, this.options.maxInFlight ?? PUBLISH_CONCURRENCY);
  }

  /** Something is queued, or a position moved, since the last batch started. */
  private hasWork(): boolean {
    return this.pending.length > 0 || !samePositions(this.seen, this.started);
  }

  private schedule(): void {
    if (this.error !== undefined || this.inFlight.size >= this.maxInFlight || !this.hasWork()) return;
    if (this.urgent) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.startBatch();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight.size < this.maxInFlight) this.startBatch();
    }, this.options.lingerMs ?? 5);
  }

  /** Starts publishing what is queued, and the positions reached with it. */
  private startBatch(): void {
    const batch = this.pending;
    const step = { upTo: { ...this.seen }, done: false };
    this.started = step.upTo;
    this.order.push(step);
    this.pending = [];
    this.urgent = false;
    const run = this.publish(batch).then((published) => {
      if (!published) return;
      step.done = true;
      while (this.order[0]?.done) this.safe = this.order.shift()?.upTo ?? this.safe;
    });
    this.inFlight.add(run);
    void run.finally(() => {
      this.inFlight.delete(run);
      this.schedule();
    });
  }

  /**
   * Publishes one batch, retrying failures worth retrying (a throttled or briefly unreachable bus)
   * with backoff; resolves to false when it gave up after
   * {@link PUBLISH_ATTEMPTS} attempts or at once on a permanent failure. An event the bus could
   * never take (past {@link MAX_BUS_EVENT_BYTES}) goes without its hints, which its steps then read
   * for themselves; one too large even so is reported through `onSkipped` and left out,
   * rather than failing the batch: failing it would stop the relay, and the next would resume
   * before the same event and fail on it again, for ever.
   */
  private async publish(whole: readonly BusEvent[]): Promise<boolean> {
    const batch = whole.flatMap((event) => {
      if (busEventBytes(event) <= MAX_BUS_EVENT_BYTES) return [event];
      const bare = withoutHints(event);
      const bytes = busEventBytes(bare);
      if (bytes <= MAX_BUS_EVENT_BYTES) return [bare];
      this.options.onSkipped?.(skippedObjectOf(event), bytes);
      return [];
    });
    for (let attempt = 1; batch.length > 0; attempt++) {
      try {
        await this.options.bus.publish(batch);
        break;
      } catch (error) {
        if (attempt >= PUBLISH_ATTEMPTS || !isRetryable(error)) {
          this.error = error;
          return false;
        }
        this.options.onRetry?.(error, attempt);
        await sleep(Math.min(5_000, 200 * 2 ** attempt));
      }
    }
    if (batch.length > 0) this.options.onPublished?.(batch.length);
    return true;
  }
}

/** `event` without the hints its detail carries (`hints`, `pairHints`): what a step can read itself. */
function withoutHints(event: Readonly<BusEvent>): BusEvent {
  const { hints: _node, pairHints: _pair, ...detail } = event.detail as Record<string, unknown>;
  return { ...event, detail };
}

function samePositions(a: WatchPositions, b: WatchPositions): boolean {
  return a.nodes === b.nodes && a.pods === b.pods && a.daemonsets === b.daemonsets;
}
