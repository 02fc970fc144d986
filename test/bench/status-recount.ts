/**
 * Status exactness for the benchmarks: once a run converged, the stored DaemonSet status is compared
 * with a recount made from the simulated cluster's store itself — every node and every pod as they
 * are now, counted by the core's status rules — so a status a step counted from a kept node LIST
 * (docs/design.md, 15. The DaemonSet step) is caught if it stays behind.
 */
import type { V1ControllerRevision, V1DaemonSetStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../lib/core/daemon-set.ts';
import { daemonSetStatusFromViews } from '../../lib/core/daemon-set-status.ts';
import { nodeViewsFor } from '../../lib/core/node-view.ts';
import { STATUS_WINDOW_SECONDS } from '../../lib/messages/daemon-set-window.ts';
import { NODE_RECOUNT_WINDOW_SECONDS } from '../../lib/messages/requeue-envelope.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { figure } from './bench-cluster.ts';

/**
 * How long after convergence the status may take to equal a recount: the node recount window
 * (a step planned on a kept node LIST is followed by one that lists within it) and a status window.
 */
export const STATUS_EXACT_WITHIN_MS = (NODE_RECOUNT_WINDOW_SECONDS + STATUS_WINDOW_SECONDS + 3) * 1000;

/** The status counts compared. */
const COUNTS = [
  'desiredNumberScheduled',
  'currentNumberScheduled',
  'numberMisscheduled',
  'numberReady',
  'numberAvailable',
  'updatedNumberScheduled',
  'numberUnavailable',
  'observedGeneration',
] as const satisfies readonly (keyof V1DaemonSetStatus)[];

/** The fields where the stored status and the recount differ, as `field stored≠recounted`. */
export function statusDifferences(sim: SimCluster, namespace: string, name: string): string[] {
  const ds = sim.store.get('apps/daemonsets', namespace, name) as unknown as DaemonSet | undefined;
  if (ds === undefined) return ['the DaemonSet is gone'];
  const uid = ds.metadata?.uid;
  const revisions = (sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[])
    .filter((r) => r.metadata?.ownerReferences?.some((ref) => ref.uid === uid))
    .sort((a, b) => Number(b.revision) - Number(a.revision));
  const currentHash = revisions[0]?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  const nodes = sim.store.list('nodes') as unknown as V1Node[];
  const pods = sim.store.list('pods') as unknown as V1Pod[];
  const recount = daemonSetStatusFromViews(ds, nodeViewsFor(ds, nodes, pods), currentHash, new Date());
  const stored: V1DaemonSetStatus = ds.status ?? ({} as V1DaemonSetStatus);
  return COUNTS.filter((field) => (stored[field] ?? 0) !== (recount[field] ?? 0)).map(
    (field) => `${field} ${stored[field] ?? 0}≠${recount[field] ?? 0}`,
  );
}

/**
 * Waits up to `withinMs` for the stored status of `namespace/name` to equal a recount, then prints
 * the figure: how long after the call it held, or the fields still different.
 */
export async function printStatusExactness(
  sim: SimCluster,
  namespace: string,
  name: string,
  withinMs: number,
): Promise<void> {
  const started = Date.now();
  let differences = statusDifferences(sim, namespace, name);
  while (differences.length > 0 && Date.now() - started < withinMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    differences = statusDifferences(sim, namespace, name);
  }
  const after = ((Date.now() - started) / 1000).toFixed(1);
  figure(
    'status equals a recount once quiet',
    differences.length === 0 ? `yes, +${after} s` : 'no',
    `yes, <= +${(withinMs / 1000).toFixed(0)} s`,
    differences.length === 0,
  );
  if (differences.length > 0) console.log(`  still different after ${after} s: ${differences.join(', ')}`);
}
