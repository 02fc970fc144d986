/**
 * One timer per simulated cluster: every delayed piece of work (a pod starting, a container
 * crashing, a grace period ending, a tolerationSeconds running out) is a keyed entry with a due
 * time in a min-heap, and a single unref'd `setTimeout` waits for the earliest. 100,000 pods cost
 * 100,000 heap entries, not 100,000 timers.
 */

/** A piece of work run when its due time has come. */
export type DueTask = () => void;

export interface DueQueueOptions {
  /** Clock in milliseconds; `Date.now` unless a test injects one. */
  readonly now?: () => number;
  /** Tasks run per turn of the event loop before yielding, so the HTTP server stays responsive. */
  readonly batchSize?: number;
  /** Called when a task throws; the queue keeps running. Defaults to a line on stderr. */
  readonly onError?: (key: string, error: unknown) => void;
}

interface Entry {
  readonly at: number;
  /** Scheduling order, so tasks due at the same time run first come, first served. */
  readonly seq: number;
  readonly key: string;
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * A keyed due-time queue driven by one timer. Scheduling a key that is already queued keeps the
 * earlier due time (the task then re-schedules itself if it has more to do later).
 */
export class DueQueue {
  private readonly heap: Entry[] = [];
  private readonly pending = new Map<string, { at: number; task: DueTask }>();
  private readonly now: () => number;
  private readonly batchSize: number;
  private readonly onError: (key: string, error: unknown) => void;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private seq = 0;
  private draining = false;
  private stopped = false;

  constructor(options: DueQueueOptions = {}) {
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? 2000;
    this.onError =
      options.onError ??
      ((key, error) => process.stderr.write(`everynode sim: task ${key} failed: ${String(error)}\n`));
  }

  /** Number of keys waiting. */
  get size(): number {
    return this.pending.size;
  }

  /** Queues `task` under `key` to run at `at` (ms since the epoch), or sooner if already queued sooner. */
  schedule(key: string, at: number, task: DueTask): void {
    if (this.stopped) return;
    const existing = this.pending.get(key);
    if (existing && existing.at <= at) {
      existing.task = task;
      return;
    }
    this.pending.set(key, { at, task });
    this.push({ at, seq: this.seq++, key });
    this.arm();
  }

  /** Forgets `key`; returns whether it was queued. */
  cancel(key: string): boolean {
    return this.pending.delete(key);
  }

  /** Drops everything and stops the timer; later `schedule` calls are ignored. */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.heap.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.draining || this.stopped) return;
    const top = this.heap[0];
    if (!top) return;
    if (this.timer && this.timerAt <= top.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = top.at;
    this.timer = setTimeout(() => this.drain(), Math.max(0, top.at - this.now()));
    this.timer.unref();
  }

  private drain(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.draining = true;
    let ran = 0;
    const now = this.now();
    while (ran < this.batchSize && !this.stopped) {
      const top = this.heap[0];
      if (!top || top.at > now) break;
      this.pop();
      const entry = this.pending.get(top.key);
      // Lazy deletion: the heap may hold stale entries for keys cancelled or moved earlier.
      if (!entry || entry.at !== top.at) continue;
      this.pending.delete(top.key);
      ran += 1;
      this.run(top.key, entry.task);
    }
    this.draining = false;
    const next = this.heap[0];
    // Not unref'd: an unref'd immediate only runs once something else wakes the event loop.
    if (next && next.at <= this.now() && !this.stopped) setImmediate(() => this.drain());
    else this.arm();
  }

  private run(key: string, task: DueTask): void {
    try {
      task();
    } catch (error) {
      this.onError(key, error);
    }
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Entry;
      if (!before(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const r = l + 1;
      const child = r < heap.length && before(heap[r] as Entry, heap[l] as Entry) ? r : l;
      if (!before(heap[child] as Entry, last)) break;
      heap[i] = heap[child] as Entry;
      i = child;
    }
    heap[i] = last;
  }
}
