/**
 * Where a rolling update's time goes, node by node, from the simulated API server's change feed:
 * the old pod's deletion (requested → gone), the wait for its replacement (gone → created), the
 * scheduler (created → bound) and the kubelet (bound → available). What a node's cycle spends
 * beyond these is the controller noticing a free slot and deleting the next old pod.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { isAvailablePod, quantile } from './bench-cluster.ts';

interface NodeTimes {
  deleting?: number;
  gone?: number;
  created?: number;
  bound?: number;
  available?: number;
}

/** Tracks every node's phases from now on; `report()` gives the medians and p90s in seconds. */
export function trackRolloutPhases(sim: SimCluster, isNew: (pod: Readonly<V1Pod>) => boolean) {
  const times = new Map<string, NodeTimes>();
  const of = (node: string) => times.get(node) ?? times.set(node, {}).get(node) ?? {};
  const stop = sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const pod = event.object as unknown as V1Pod;
    const node = targetNodeName(pod);
    if (node === undefined) return;
    const t = of(node);
    const now = performance.now();
    if (!isNew(pod)) {
      if (pod.metadata?.deletionTimestamp || event.type === 'DELETED') t.deleting ??= now;
      if (event.type === 'DELETED') t.gone ??= now;
      return;
    }
    if (event.type === 'ADDED') t.created ??= now;
    if (pod.spec?.nodeName) t.bound ??= now;
    if (event.type !== 'DELETED' && isAvailablePod(pod)) t.available ??= now;
  });
  const segment = (from: keyof NodeTimes, to: keyof NodeTimes) =>
    [...times.values()].flatMap((t) => {
      const [a, b] = [t[from], t[to]];
      return a === undefined || b === undefined ? [] : [(b - a) / 1000];
    });
  const describe = (values: number[]) =>
    `median ${quantile(values, 0.5).toFixed(2)} s, p90 ${quantile(values, 0.9).toFixed(2)} s`;
  return {
    stop,
    report: (): string =>
      [
        `old pod deleting → gone: ${describe(segment('deleting', 'gone'))}`,
        `gone → replacement created: ${describe(segment('gone', 'created'))}`,
        `created → bound: ${describe(segment('created', 'bound'))}`,
        `bound → available: ${describe(segment('bound', 'available'))}`,
        `deleting → available (one node's cycle): ${describe(segment('deleting', 'available'))}`,
      ].join('\n'),
  };
}
