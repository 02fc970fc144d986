/**
 * The reconciler's footprint over a benchmark's measured interval, printed after its figures: the
 * largest LIST it made of each resource and how often it listed that resource (the size of a LIST
 * is what a reconcile process's memory and the API server's time grow with), and the peak memory
 * of the thread it ran in.
 */
import { RECONCILE_USER_AGENT } from '../../lib/reconcile/setup/deps-for-config.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { HeapPeakFigures } from './heap-peak.ts';

/** What {@link printReconcilerFootprint} prints. */
export interface ReconcilerFootprint {
  readonly sim: SimCluster;
  /** Length of the measured interval, in seconds (LISTs per minute are over it). */
  readonly seconds: number;
  /** Peaks of the thread the reconciler ran in, read when the interval ended. */
  readonly heap: HeapPeakFigures;
  /** What that thread ran, for the label: `the pipeline thread (relay + router + reconcile)`. */
  readonly thread: string;
  /** Why its heap is (or is not) the reconcile Lambda's, for the label. */
  readonly heapNote: string;
}

/** The labels for the bench cluster's pipeline thread (`bench-pipeline-worker.ts`). */
export const PIPELINE_THREAD = {
  thread: 'the pipeline thread (relay + router + reconcile in one heap)',
  heapNote: 'the reconcile Lambda runs alone: an upper bound for it',
} as const;

const count = (n: number) => n.toLocaleString('en-US');
const megabytes = (bytes: number) =>
  bytes < 100_000 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;

/** `nodes 5,000 items (12.3 MB) × 41 LISTs (24.6/min); …` for the reconciler's LISTs since the counters' reset. */
function largestListsOf(sim: SimCluster, seconds: number): string {
  const lines = sim.counters.largestLists({ verb: 'list', userAgent: RECONCILE_USER_AGENT });
  if (lines.length === 0) return 'no LISTs';
  const minutes = seconds / 60;
  return lines
    .map(
      (l) =>
        `${l.resource} ${count(l.items)} item${l.items === 1 ? '' : 's'} (${megabytes(l.bytes)}) × ${count(l.lists)} LISTs (${(l.lists / minutes).toFixed(1)}/min)`,
    )
    .join('; ');
}

/** Prints the largest LISTs and the peak memory, as plain figures (no goals). */
export function printReconcilerFootprint(footprint: Readonly<ReconcilerFootprint>): void {
  const { heap } = footprint;
  console.log(
    `largest LIST by the reconciler per resource, over ${footprint.seconds.toFixed(1)} s: ${largestListsOf(footprint.sim, footprint.seconds)}`,
  );
  console.log(
    `peak V8 heap used of ${footprint.thread}: ${megabytes(heap.heapBytes)} (${footprint.heapNote}; ${heap.samples} samples, every 250 ms)`,
  );
  console.log(
    `peak RSS of the whole process (simulated cluster and every thread): ${megabytes(heap.rssBytes)}`,
  );
}
