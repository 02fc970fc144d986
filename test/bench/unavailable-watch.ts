/**
 * Nodes without an available pod, followed from the simulated API server's change feed: how many
 * now, the most at once, and for each node how many seconds it went without one (summed over the
 * gaps), which is what a node's agent costs the node during a rollout.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { isAvailablePod } from './bench-cluster.ts';

/** A watch over `nodes` nodes' available pods. */
export interface UnavailableWatch {
  /** Nodes without an available pod now. */
  now(): number;
  /** The most nodes without an available pod at once since the watch started. */
  worst(): number;
  /** Seconds each node that lost its available pod went without one (gaps still open end now). */
  gapSeconds(): number[];
  stop(): void;
}

/** Starts watching; the pods stored now are the starting point. */
export function watchUnavailable(sim: SimCluster, nodes: number): UnavailableWatch {
  const availableOn = new Map<string, string>();
  const perNode = new Map<string, number>();
  const lostAt = new Map<string, number>();
  const gaps = new Map<string, number>();
  let worst = 0;
  const unavailable = () => nodes - perNode.size;
  const add = (node: string, delta: number) => {
    const count = (perNode.get(node) ?? 0) + delta;
    if (count > 0) perNode.set(node, count);
    else perNode.delete(node);
    const now = performance.now();
    if (count === 0 && delta < 0) lostAt.set(node, now);
    const since = lostAt.get(node);
    if (count === 1 && delta > 0 && since !== undefined) {
      lostAt.delete(node);
      gaps.set(node, (gaps.get(node) ?? 0) + (now - since) / 1000);
    }
  };
  for (const pod of sim.store.list('pods') as unknown as V1Pod[]) {
    const node = isAvailablePod(pod) ? targetNodeName(pod) : undefined;
    if (node === undefined) continue;
    availableOn.set(pod.metadata?.uid ?? '', node);
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const stop = sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const pod = event.object as unknown as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const was = availableOn.get(uid);
    const is = event.type !== 'DELETED' && isAvailablePod(pod) ? targetNodeName(pod) : undefined;
    if (was === is) return;
    if (was !== undefined) {
      availableOn.delete(uid);
      add(was, -1);
    }
    if (is !== undefined) {
      availableOn.set(uid, is);
      add(is, 1);
    }
    worst = Math.max(worst, unavailable());
  });
  return {
    now: unavailable,
    worst: () => worst,
    gapSeconds: () => {
      const now = performance.now();
      const open = [...lostAt].map(([node, since]) => [node, (now - since) / 1000] as const);
      const all = new Map(gaps);
      for (const [node, seconds] of open) all.set(node, (all.get(node) ?? 0) + seconds);
      return [...all.values()];
    },
    stop,
  };
}
