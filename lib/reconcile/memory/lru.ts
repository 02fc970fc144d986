/**
 * The bounded maps behind the reconciler's per-process memory: a Lambda container lives for hours
 * and sees every DaemonSet, node and pair of the cluster, so each map keeps only its most recently
 * used entries.
 */

/** A Map bounded to `size` entries, evicting the least recently used. */
export class Lru<V> {
  readonly #entries = new Map<string, V>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  /** The value under `key`, now the most recently used; undefined when absent or evicted. */
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The values, least recently used first (reading them does not make them recently used). */
  values(): V[] {
    return [...this.#entries.values()];
  }

  /** Forgets `key`. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Puts `value` under `key` as the most recently used, evicting the least recently used beyond `size`. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#size) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
