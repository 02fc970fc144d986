/**
 * A counting semaphore for the heavy steps of one process. A `daemonset` step lists every node and
 * all of its DaemonSet's pods; ten of them at once (one batch of ten DaemonSets) would hold the
 * process's one thread for a long burst, in which a node's step that arrived meanwhile waits, and
 * would hold ten such LISTs in a Lambda container's memory at once.
 */
export class StepLimiter {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a step limiter needs a limit >= 1 (got ${limit})`);
    this.#limit = limit;
  }

  /** Runs `step` once fewer than `limit` steps run, in arrival order. */
  async run<T>(step: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await step();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
