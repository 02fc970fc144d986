/**
 * The property test's model of the right end state, written independently of lib/core, and its
 * watch of the rollout budget along the way.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import { isReady, podsOf, storedDaemonSet } from '../support/reconcile-cluster.ts';
import type { Harness } from '../support/reconcile-harness.ts';

/** The DaemonSets of the property: `all` on every node, `ssd` on nodes labelled disk=ssd. */
export const DAEMON_SETS = ['all', 'ssd'] as const;
/** True when the node has a taint `key` (of `effect`, when given). */
export const hasTaint = (node: V1Node, key: string, effect?: string) =>
  (node.spec?.taints ?? []).some((t) => t.key === key && (effect === undefined || t.effect === effect));

/** The expected placement, written independently of lib/core: shouldRun and shouldContinueRunning. */
export function expected(ds: string, node: V1Node): { run: boolean; keep: boolean } {
  const selected = ds === 'all' || node.metadata?.labels?.disk === 'ssd';
  const noExecute = hasTaint(node, 'dedicated', 'NoExecute');
  const blocked =
    noExecute || hasTaint(node, 'dedicated', 'NoSchedule') || hasTaint(node, 'node.kubernetes.io/not-ready');
  return { run: selected && !blocked, keep: selected && !noExecute };
}

/** The image of the pod's first container. */
export const imageOf = (pod: Readonly<V1Pod>) => pod.spec?.containers[0]?.image;
/** The DaemonSet's pods that are not being deleted. */
export const livePods = (harness: Harness, ds: V1DaemonSet) =>
  podsOf(harness, ds.metadata?.uid ?? '').filter((pod) => !pod.metadata?.deletionTimestamp);

/** Violations of the final state: placement, revision and readiness per node, and status. */
export function problems(harness: Harness): string[] {
  const found: string[] = [];
  const nodes = harness.sim.store.list('nodes') as unknown as V1Node[];
  for (const name of DAEMON_SETS) {
    const ds = storedDaemonSet(harness, 'default', name) as V1DaemonSet;
    const image = ds.spec?.template.spec?.containers[0]?.image;
    const pods = livePods(harness, ds);
    let desired = 0;
    for (const node of nodes) {
      const here = pods.filter((pod) => targetNodeName(pod) === node.metadata?.name);
      const { run, keep } = expected(name, node);
      if (run) desired++;
      if (run && (here.length !== 1 || imageOf(here[0] as V1Pod) !== image || !isReady(here[0] as V1Pod)))
        found.push(`${name} on ${node.metadata?.name}: ${here.map(imageOf)} (ready: ${here.map(isReady)})`);
      if (!run && here.length > (keep ? 1 : 0))
        found.push(`${name} on ${node.metadata?.name}: ${here.length} pods`);
    }
    const orphaned = pods.filter((pod) => !nodes.some((node) => node.metadata?.name === targetNodeName(pod)));
    if (orphaned.length > 0)
      found.push(
        `${name}: pods on vanished nodes ${orphaned.map((pod) => `${pod.metadata?.name}@${targetNodeName(pod)}`)}`,
      );
    const status = ds.status;
    if (
      status?.desiredNumberScheduled !== desired ||
      status.updatedNumberScheduled !== desired ||
      status.numberReady !== desired
    )
      found.push(`${name} status ${JSON.stringify(status)} != desired ${desired}`);
  }
  return found;
}

/**
 * The most nodes at once whose available old-revision pod the controller took away while no pod
 * there is available again (pods the test deleted, and nodes removed, tainted NoExecute or NotReady,
 * do not count). Any available pod ends a node's unavailability, as upstream counts maxUnavailable:
 * after two template changes in a row, the pod of the middle one that became ready is an available
 * old pod, and another node's old pod may go.
 */
export function watchBudget(harness: Harness, deletedByTest: Set<string>): { stop: () => number } {
  const replacing = new Set<string>();
  const seen = new Map<string, V1Pod>();
  let worst = 0;
  const unsubscribe = harness.sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const pod = event.object as unknown as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const before = seen.get(uid);
    const ds = storedDaemonSet(harness, 'default', 'all');
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller)?.uid;
    if (ds === undefined || owner !== ds.metadata?.uid) return;
    const node = harness.sim.nodes.get(targetNodeName(pod) ?? '');
    const gone = event.type === 'DELETED' || Boolean(pod.metadata?.deletionTimestamp);
    const current = ds.spec?.template.spec?.containers[0]?.image;
    seen.set(uid, pod);
    if (gone && before && isReady(before) && imageOf(before) !== current && !deletedByTest.has(uid) && node) {
      if (expected('all', node).keep && !hasTaint(node, 'node.kubernetes.io/not-ready'))
        replacing.add(node.metadata?.name ?? '');
    }
    for (const name of [...replacing]) {
      const at = harness.sim.nodes.get(name);
      const settled = livePods(harness, ds).some((p) => targetNodeName(p) === name && isReady(p));
      if (!at || settled || !expected('all', at).run) replacing.delete(name);
    }
    worst = Math.max(worst, replacing.size);
  });
  return {
    stop: () => {
      unsubscribe();
      return worst;
    },
  };
}
