/**
 * The DaemonSet steps of one process: how many run at once, and which messages a completed one
 * covers. It is a counting semaphore for these heavy steps: a `daemonset` step lists every node and
 * all of its DaemonSet's pods; ten of them at once (one batch of ten DaemonSets) would hold the
 * process's one thread for a long burst, in which a node's step that arrived meanwhile waits, and
 * would hold ten such LISTs in a Lambda container's memory at once.
 *
 * It also remembers, for each key (a DaemonSet), from when the reads of its latest completed step
 * were, so that a message sent before them is known to be covered (see {@link runUncovered}).
 */
import { Lru } from './lru.ts';

/**
 * How much earlier than a step's start a message must have been sent for the step to cover it:
 * SentTimestamp is the queue's clock, the step's start this process's, and the two may disagree by
 * this much.
 */
export const COVER_MARGIN_MS = 1000;

export class DaemonSetSteps {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** From when the reads of the latest completed step of each key were (ms since the epoch). */
  readonly #completedFrom = new Lru<number>(4096);

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`DaemonSetSteps needs a limit >= 1 (got ${limit})`);
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

  /**
   * Runs `step` for `key` as {@link run} does, unless a completed step of the same key read only
   * what was at least {@link COVER_MARGIN_MS} newer than `sentAtMs` (when the message asking for
   * this step was sent): that step saw everything the message could announce, and asked to run
   * again for whatever it still waited on, so this one would only repeat it. `readsFrom` is the
   * earliest moment this step's reads may have begun (its message's arrival: the node LIST it shares
   * began no earlier). Resolves to undefined when skipped. Upstream's work queue coalesces the same
   * way: a key waiting in the queue is held once, however often it is added.
   */
  async runUncovered<T>(
    key: string,
    sentAtMs: number | undefined,
    readsFrom: number,
    step: () => Promise<T>,
  ): Promise<T | undefined> {
    return this.run(async () => {
      const covered = this.#completedFrom.get(key);
      if (sentAtMs !== undefined && covered !== undefined && sentAtMs < covered - COVER_MARGIN_MS)
        return undefined;
      const result = await step();
      this.#completedFrom.set(key, Math.max(readsFrom, this.#completedFrom.get(key) ?? 0));
      return result;
    });
  }
}
