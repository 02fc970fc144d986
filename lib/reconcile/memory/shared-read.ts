/**
 * A read shared by the steps of one process: a step asks for a result read no earlier than the
 * moment its message arrived, and gets the latest read that began at or after that moment (in
 * flight or done) instead of making its own. A read that began after the message arrived sees the
 * change that sent the message, so sharing it loses nothing; it only spares the API server the
 * same LIST of every node made once per DaemonSet when several DaemonSet steps run together.
 */
/** A shared read's result and when its read began (ms since the epoch). */
export interface SharedResult<T> {
  readonly value: T;
  readonly startedAt: number;
  /** The result was kept from an earlier read rather than read for this caller ({@link SharedRead.getUnlessChanged}). */
  readonly kept?: boolean;
}

export class SharedRead<T> {
  readonly #now: () => number;
  #latest: { readonly startedAt: number; readonly result: Promise<SharedResult<T>> } | undefined;
  /** The latest read that succeeded. */
  #settled: SharedResult<T> | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * The latest result of `read` begun at or after `notBefore` (ms since the epoch); a new read when
   * there is none. A failed read is forgotten, so the next caller reads again.
   */
  get(notBefore: number, read: () => Promise<T>): Promise<SharedResult<T>> {
    const latest = this.#latest;
    if (latest !== undefined && latest.startedAt >= notBefore) return latest.result;
    const startedAt = this.#now();
    const result = read().then((value) => {
      const done = { value, startedAt };
      if (startedAt >= (this.#settled?.startedAt ?? 0)) this.#settled = done;
      return done;
    });
    const entry = { startedAt, result };
    this.#latest = entry;
    result.catch(() => {
      if (this.#latest === entry) this.#latest = undefined;
    });
    return result;
  }

  /**
   * The latest successful result when `current` holds for it and it began at most `maxAgeMs` ago —
   * the caller knows nothing it depends on changed since (docs/design.md, 15. The DaemonSet step:
   * "A node LIST is reused while no node changed") — else {@link get}.
   */
  getUnlessChanged(
    notBefore: number,
    current: (value: T) => boolean,
    maxAgeMs: number,
    read: () => Promise<T>,
  ): Promise<SharedResult<T>> {
    const settled = this.#settled;
    if (settled !== undefined && this.#now() - settled.startedAt <= maxAgeMs && current(settled.value))
      return Promise.resolve({ ...settled, kept: true });
    return this.get(notBefore, read);
  }
}
