/**
 * The per-node sizing parts of `npm run bench -- rollout --sizing [--resize]`: the DaemonSet's
 * sizing rule, the check that every pod got its node's size, and the rule change resized in place
 * on the converged cluster. Goals of the resize: one resize per node whose size changes (a node whose
 * request the rule clamps keeps it: only its revision label moves), no container restarted, done
 * within 1.10 x its floor (the larger of the waves of maxUnavailable nodes x the kubelet's resize
 * time and the writes / the request budget).
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { IN_PLACE_ANNOTATION } from '../../lib/core/in-place/in-place-setting.ts';
import { nodeSizingOf } from '../../lib/core/node-sizing/node-sizing.ts';
import { sizedResources } from '../../lib/core/node-sizing/sized-resources.ts';
import { NODE_SIZING_ANNOTATION } from '../../lib/core/node-sizing/sizing-spec.ts';
import { INSTANCE_TYPE_LABEL } from '../../lib/sim/instance-types.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import {
  type BenchCluster,
  figure,
  isAvailablePod,
  LIMIT_QPS,
  reconcileRequests,
  requestBreakdown,
  waitUntil,
} from './bench-cluster.ts';

/** The template's container: requests the rule replaces on every node. */
export const SIZED_POD_SPEC = {
  containers: [
    { name: 'main', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '64Mi' } } },
  ],
};

/** A share of the node's allocatable, plus memory per allocatable pod, clamped. */
export const PROPORTIONAL = [
  {
    container: 'main',
    perAllocatable: { cpu: '0.5%', memory: '1%' },
    perAllocatablePod: { memory: '4Mi' },
    min: { cpu: '50m', memory: '128Mi' },
    max: { cpu: '2', memory: '4Gi' },
  },
];

/** The rule `--resize` changes to: half as much memory again. */
const GROWN = [{ ...PROPORTIONAL[0], perAllocatable: { cpu: '0.5%', memory: '1.5%' } }];

/** Nodes the resize updates at once. */
const RESIZE_MAX_UNAVAILABLE = 250;
/** Simulated seconds the kubelet takes to apply a resize (SimTiming podResizeSeconds' default). */
const RESIZE_SECONDS = 1;

export function sizingAnnotations(rules: readonly object[]): Record<string, string> {
  return { [NODE_SIZING_ANNOTATION]: JSON.stringify(rules) };
}

const storedDaemonSet = (sim: SimCluster) =>
  sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
const pods = (sim: SimCluster) => sim.store.view('pods') as unknown as readonly V1Pod[];

/**
 * Pods whose requests (and, with `applied`, the kubelet's reported resources) are what `ds`'s rules
 * (the stored DaemonSet's by default) give their node.
 */
function sizedRight(
  sim: SimCluster,
  applied: boolean,
  ds: V1DaemonSet = storedDaemonSet(sim),
): { right: number; wrong: string[]; byType: Map<string, string> } {
  const template = ds.spec?.template.spec;
  const rules = nodeSizingOf(ds);
  const wrong: string[] = [];
  const byType = new Map<string, string>();
  let right = 0;
  for (const pod of pods(sim)) {
    const nodeName = pod.spec?.nodeName ?? '';
    const node = sim.store.get('nodes', '', nodeName) as unknown as V1Node | undefined;
    if (!template || !node) continue;
    const want = sizedResources(template, rules, node).get('main')?.requests;
    const has = pod.spec?.containers[0]?.resources?.requests;
    const reported = pod.status?.containerStatuses?.[0]?.resources?.requests;
    const same = (a: typeof want, b: typeof want) => a?.cpu === b?.cpu && a?.memory === b?.memory;
    if (same(want, has) && (!applied || same(want, reported))) right++;
    else if (wrong.length < 5)
      wrong.push(`${nodeName}: wants ${JSON.stringify(want)}, has ${JSON.stringify(has)}`);
    byType.set(
      node.metadata?.labels?.[INSTANCE_TYPE_LABEL] ?? '?',
      `cpu ${want?.cpu}, memory ${want?.memory}`,
    );
  }
  return { right, wrong, byType };
}

/** Prints whether every pod's requests equal the rule's value for its node, and the sizes by instance type. */
export function printSizes(sim: SimCluster): void {
  const nodes = sim.nodes.names().length;
  const { right, wrong, byType } = sizedRight(sim, false);
  figure('pods sized as the rule says for their node', `${right} of ${nodes}`, `${nodes}`, right === nodes);
  for (const line of wrong) console.log(`  ${line}`);
  for (const [type, size] of [...byType].sort()) console.log(`  ${type.padEnd(14)} ${size}`);
}

/** The rule changed on the converged cluster, resized in place; prints the figures beside their goals. */
export async function resizeBench(cluster: BenchCluster): Promise<void> {
  const sim = cluster.sim;
  const nodes = sim.nodes.names().length;
  const ds = storedDaemonSet(sim);
  ds.metadata = {
    ...ds.metadata,
    annotations: {
      ...ds.metadata?.annotations,
      [IN_PLACE_ANNOTATION]: 'IfPossible',
      ...sizingAnnotations(GROWN),
    },
  };
  if (ds.spec)
    ds.spec.updateStrategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: RESIZE_MAX_UNAVAILABLE },
    };
  const restarts = () =>
    pods(sim).reduce(
      (sum, p) => sum + (p.status?.containerStatuses ?? []).reduce((s, c) => s + c.restartCount, 0),
      0,
    );
  const uids = new Set(pods(sim).map((p) => p.metadata?.uid));
  // Pods the new rule leaves at their size (a request clamped at the rule's max) need no resize.
  const toResize = nodes - sizedRight(sim, true, ds).right;
  const restartsBefore = restarts();
  sim.counters.reset();
  const started = Date.now();
  sim.store.update('apps/daemonsets', ds as unknown as KubeObject);
  await waitUntil(
    'the resize to finish',
    () => {
      const status = storedDaemonSet(sim).status;
      return (
        status?.updatedNumberScheduled === nodes &&
        status.numberAvailable === nodes &&
        pods(sim).filter(isAvailablePod).length === nodes &&
        sizedRight(sim, true).right === nodes
      );
    },
    60 * 60_000,
    500,
  );
  const seconds = (Date.now() - started) / 1000;
  const resizes = reconcileRequests(sim, { verb: 'patch', resource: 'pods', subresource: 'resize' });
  const podWrites = ['create', 'update', 'patch', 'delete'].reduce(
    (sum, verb) => sum + reconcileRequests(sim, { verb, resource: 'pods' }),
    0,
  );
  const kept = pods(sim).filter((p) => uids.has(p.metadata?.uid)).length;
  const waves = Math.ceil(nodes / RESIZE_MAX_UNAVAILABLE);
  // The writes a node needs at least: its resize and the move of its revision label.
  const floor = Math.max(waves * RESIZE_SECONDS, (2 * nodes) / LIMIT_QPS);
  console.log(
    `\nresize: the rule's memory share 1% -> 1.5% on ${nodes} nodes in place, maxUnavailable ${RESIZE_MAX_UNAVAILABLE}`,
  );
  figure(
    `resizes per node whose size changed (${toResize} of ${nodes})`,
    (resizes / Math.max(1, toResize)).toFixed(3),
    '1',
    resizes === toResize,
  );
  figure(
    'pod writes per node (resize + revision label)',
    (podWrites / nodes).toFixed(3),
    '<= 2',
    podWrites <= 2 * nodes,
  );
  figure('containers restarted', String(restarts() - restartsBefore), '0', restarts() === restartsBefore);
  figure('pods kept (same UID)', `${kept} of ${nodes}`, `${nodes}`, kept === nodes);
  figure('time to finish (s)', seconds.toFixed(1), `<= ${(1.1 * floor).toFixed(1)}`, seconds <= 1.1 * floor);
  console.log(
    `floor ${floor.toFixed(1)} s: the larger of ${waves} waves x ${RESIZE_SECONDS} s and ${2 * nodes} pod writes (a resize and a relabel per node) / ${LIMIT_QPS} requests/s`,
  );
  console.log(`requests: ${requestBreakdown(sim)}`);
}
