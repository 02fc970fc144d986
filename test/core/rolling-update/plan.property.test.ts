import type { V1Node, V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NodeView, nodeViewsFor } from '../../../lib/core/node-view.ts';
import { isPodAvailable } from '../../../lib/core/pod-availability.ts';
import { rolloutBudget } from '../../../lib/core/rolling-update/budget.ts';
import { planRollout } from '../../../lib/core/rolling-update/plan.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';

const podArb = fc.record({
  current: fc.boolean(),
  ready: fc.boolean(),
  readyForSeconds: fc.integer({ min: 0, max: 120 }),
  terminating: fc.boolean(),
});
const nodeArb = fc.record({
  taint: fc.constantFrom('none', 'none', 'NoSchedule', 'NoExecute' as const),
  gone: fc.boolean(),
  pods: fc.array(podArb, { maxLength: 2 }),
});
const clusterArb = fc.record({
  maxUnavailable: fc.oneof(
    fc.integer({ min: 0, max: 4 }),
    fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
  ),
  strict: fc.boolean(),
  partition: fc.option(fc.integer({ min: 0, max: 8 })),
  minReadySeconds: fc.constantFrom(0, 60),
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 8 }),
});

type Cluster = typeof clusterArb extends fc.Arbitrary<infer T> ? T : never;

function build(cluster: Cluster) {
  const ds = aDaemonSet('agent', {
    minReadySeconds: cluster.minReadySeconds,
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: cluster.maxUnavailable,
        maxSurge: 0,
        ...(cluster.strict ? { strict: true } : {}),
        ...(cluster.partition !== null ? { partition: cluster.partition } : {}),
      } as Record<string, unknown>,
    },
  });
  const nodes: V1Node[] = [];
  const pods: V1Pod[] = [];
  cluster.nodes.forEach((spec, i) => {
    const name = `n${i}`;
    if (!spec.gone)
      nodes.push(aNode(name, spec.taint === 'none' ? {} : { taints: [{ key: 'k', effect: spec.taint }] }));
    spec.pods.forEach((p, j) => {
      pods.push(
        aPod(`${name}-p${j}`, {
          owner: ds,
          nodeName: name,
          phase: 'Running',
          ready: p.ready,
          readySince: new Date(NOW.getTime() - p.readyForSeconds * 1000),
          labels: { 'controller-revision-hash': p.current ? HASH : 'oldhash' },
          ...(p.terminating ? { deletionTimestamp: NOW } : {}),
        }),
      );
    });
  });
  return { ds, nodes, pods };
}

/**
 * Unavailable nodes counted as upstream rollingUpdate does (written independently of the plan):
 * every node that should run the pod or holds its pods is unavailable unless its live pods are
 * exactly one available pod. `oldUnavailable` counts nodes whose only live pod is an old
 * unavailable one (the ones strict mode does not count as in flight).
 */
function countUnavailable(views: readonly NodeView[], minReadySeconds: number) {
  let unavailable = 0;
  let oldUnavailable = 0;
  for (const view of views) {
    const live = view.pods.filter((p) => !p.metadata?.deletionTimestamp);
    if (!view.shouldRun && view.pods.length === 0) continue;
    const only = live.length === 1 ? live[0] : undefined;
    if (only && isPodAvailable(only, minReadySeconds, NOW)) continue;
    unavailable++;
    if (only && only.metadata?.labels?.['controller-revision-hash'] !== HASH) oldUnavailable++;
  }
  return { unavailable, inFlight: unavailable - oldUnavailable };
}

describe('planRollout (properties)', () => {
  it('deletes never take more nodes down than maxUnavailable allows, strict or not', () => {
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const { ds, nodes, pods } = build(cluster);
        const views = nodeViewsFor(ds, nodes, pods);
        const actions = planRollout({ ds, nodes: views, currentHash: HASH, now: NOW });
        const deleted = new Set(actions.flatMap((a) => (a.type === 'delete' ? [a.name] : [])));
        const after = nodeViewsFor(
          ds,
          nodes,
          pods.filter((p) => !deleted.has(p.metadata?.name ?? '')),
        );
        const { maxUnavailable } = rolloutBudget(ds, views.filter((v) => v.shouldRun).length);
        const before = countUnavailable(views, cluster.minReadySeconds);
        const later = countUnavailable(after, cluster.minReadySeconds);
        expect(actions.filter((a) => a.type === 'create')).toEqual([]);
        expect(later.unavailable).toBeLessThanOrEqual(Math.max(maxUnavailable, before.unavailable));
        const availableDeleted = pods.some(
          (p) => deleted.has(p.metadata?.name ?? '') && isPodAvailable(p, cluster.minReadySeconds, NOW),
        );
        if (availableDeleted) expect(later.unavailable).toBeLessThanOrEqual(maxUnavailable);
        if (cluster.strict)
          expect(deleted.size).toBeLessThanOrEqual(Math.max(0, maxUnavailable - before.inFlight));
        if (cluster.partition !== null) {
          const oldOnly = views.filter((v) => {
            const live = v.pods.filter((p) => !p.metadata?.deletionTimestamp);
            return live.length === 1 && live[0]?.metadata?.labels?.['controller-revision-hash'] !== HASH;
          }).length;
          expect(deleted.size).toBeLessThanOrEqual(Math.max(0, oldOnly - cluster.partition));
        }
      }),
      { numRuns: 500 },
    );
  });
});
