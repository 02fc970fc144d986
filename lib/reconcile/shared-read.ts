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
}

export class SharedRead<T> {
  readonly #now: () => number;
  #latest: { readonly startedAt: number; readonly result: Promise<SharedResult<T>> } | undefined;

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
    const result = read().then((value) => ({ value, startedAt }));
    const entry = { startedAt, result };
    this.#latest = entry;
    result.catch(() => {
      if (this.#latest === entry) this.#latest = undefined;
    });
    return result;
  }
}
