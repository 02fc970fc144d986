/**
 * The peak memory of a benchmark's worker thread: the thread samples its own V8 heap
 * (`v8.getHeapStatistics().used_heap_size`, that thread's isolate alone) and the process's RSS
 * (`process.memoryUsage().rss`, the whole process: the simulated cluster and every thread) every
 * 250 ms into memory shared with the main thread, which resets the peaks when its measured
 * interval starts and reads them when it ends. Sharing memory rather than posting messages keeps
 * the workers' own message handling as it is, and lets the main thread read the peaks while the
 * worker is busy.
 */
import { getHeapStatistics } from 'node:v8';

/** How often the worker samples, in ms. */
const SAMPLE_EVERY_MS = 250;
const HEAP = 0;
const RSS = 1;
const SAMPLES = 2;

/** Peaks since the last reset. */
export interface HeapPeakFigures {
  /** Largest used V8 heap of the sampled thread, in bytes. */
  readonly heapBytes: number;
  /** Largest resident set of the whole process, in bytes. */
  readonly rssBytes: number;
  /** Samples taken since the reset. */
  readonly samples: number;
}

/** The main thread's side: the shared peaks of one worker thread. */
export class HeapPeak {
  /** What the worker writes to (pass it to {@link sampleHeapInto} in the worker). */
  readonly buffer = new SharedArrayBuffer(3 * BigInt64Array.BYTES_PER_ELEMENT);
  private readonly cells = new BigInt64Array(this.buffer);

  /** Forgets the peaks: the next samples start a new interval. */
  reset(): void {
    for (const cell of [HEAP, RSS, SAMPLES]) Atomics.store(this.cells, cell, 0n);
  }

  /** The peaks since the last reset. */
  read(): HeapPeakFigures {
    return {
      heapBytes: Number(Atomics.load(this.cells, HEAP)),
      rssBytes: Number(Atomics.load(this.cells, RSS)),
      samples: Number(Atomics.load(this.cells, SAMPLES)),
    };
  }
}

/** Raises `cells[index]` to `value` unless it is larger; safe against the main thread's reset. */
function raise(cells: BigInt64Array, index: number, value: bigint): void {
  for (;;) {
    const was = Atomics.load(cells, index);
    if (value <= was || Atomics.compareExchange(cells, index, was, value) === was) return;
  }
}

/**
 * The worker's side: samples this thread's heap and the process's RSS into `buffer` now and
 * every 250 ms, without keeping the thread alive. Returns a function that stops sampling.
 */
export function sampleHeapInto(buffer: SharedArrayBuffer): () => void {
  const cells = new BigInt64Array(buffer);
  const sample = () => {
    raise(cells, HEAP, BigInt(getHeapStatistics().used_heap_size));
    raise(cells, RSS, BigInt(process.memoryUsage().rss));
    Atomics.add(cells, SAMPLES, 1n);
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
