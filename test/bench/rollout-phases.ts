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
  const startedAt = performance.now();
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
    values.length === 0
      ? 'none'
      : `median ${quantile(values, 0.5).toFixed(2)} s, p90 ${quantile(values, 0.9).toFixed(2)} s`;
  const at = (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : `${((value - startedAt) / 1000).toFixed(1)} s`;
  const latest = (phase: keyof NodeTimes) =>
    Math.max(...[...times.values()].map((t) => t[phase] ?? Number.NEGATIVE_INFINITY));
  const earliest = (phase: keyof NodeTimes) =>
    Math.min(...[...times.values()].map((t) => t[phase] ?? Number.POSITIVE_INFINITY));
  /** The end of the rollout: when the last deletion, creation and availability came, and the last 1 % of nodes' phases. */
  const tail = (): string => {
    const last = [...times.values()]
      .filter((t) => t.available !== undefined)
      .sort((a, b) => (a.available ?? 0) - (b.available ?? 0))
      .slice(-Math.max(1, Math.ceil(times.size / 100)));
    const deletedAt = last.flatMap((t) =>
      t.deleting === undefined ? [] : [(t.deleting - startedAt) / 1000],
    );
    return [
      `first pod created at ${at(earliest('created'))}; the end: last old pod deleted at ${at(latest('deleting'))}, last replacement created at ${at(latest('created'))}, last available at ${at(latest('available'))}`,
      `the last ${last.length} nodes to turn available: old pod deleted at ${describe(deletedAt)} after the start; gone → replacement created ${describe(last.flatMap((t) => (t.gone === undefined || t.created === undefined ? [] : [(t.created - t.gone) / 1000])))}`,
    ].join('\n');
  };
  return {
    stop,
    report: (): string =>
      [
        `old pod deleting → gone: ${describe(segment('deleting', 'gone'))}`,
        `gone → replacement created: ${describe(segment('gone', 'created'))}`,
        `created → bound: ${describe(segment('created', 'bound'))}`,
        `bound → available: ${describe(segment('bound', 'available'))}`,
        `deleting → available (one node's cycle): ${describe(segment('deleting', 'available'))}`,
        tail(),
      ].join('\n'),
  };
}
