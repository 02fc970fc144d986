/**
 * The status text of node sizing (`status.nodeSizing`, the `-o wide` column and the rollout plan's
 * line) and the status the DaemonSet step writes with it: the range over the nodes that run the
 * daemon, none without rules; a changed range is a status write.
 */
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { nodeSizingText } from '../../../lib/core/node-sizing/sizing-status.ts';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import { nodeSizingStatusOf, withPlacementStatus } from '../../../lib/core/placement-status.ts';
import { needsStatusWrite } from '../../../lib/reconcile/daemon-set-step/write-status.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { eksNode, exampleRules, LARGE, XL8, XL32 } from './sizing-fixtures.ts';

const nodes = [
  eksNode('a', 'm6a.large', LARGE),
  eksNode('b', 'm6a.8xlarge', XL8),
  eksNode('c', 'r6a.32xlarge', XL32),
];

function sized(rules: unknown, nodeSelector?: Record<string, string>): DaemonSet {
  return aDaemonSet('agent', {
    annotations: { 'everynode.dev/node-sizing': JSON.stringify(rules) },
    podSpec: { containers: [{ name: 'agent', image: 'agent:1' }] },
    ...(nodeSelector ? { nodeSelector } : {}),
  }) as DaemonSet;
}

describe('nodeSizingText', () => {
  it('gives the range of the rules over the nodes that run the daemon', () => {
    const ds = sized(exampleRules('agent'));
    expect(nodeSizingText(ds, nodeViewsFor(ds, nodes, []))).toBe('agent cpu 50m-639m memory 186Mi-6Gi');
  });

  it('leaves out the nodes that do not run it', () => {
    const ds = sized(exampleRules('agent'), { 'node.kubernetes.io/instance-type': 'm6a.large' });
    expect(nodeSizingText(ds, nodeViewsFor(ds, nodes, []))).toBe('agent cpu 50m memory 186Mi');
  });

  it('is undefined without rules, with invalid rules, or with no node to size', () => {
    const plain = aDaemonSet('agent') as DaemonSet;
    expect(nodeSizingText(plain, nodeViewsFor(plain, nodes, []))).toBeUndefined();
    const invalid = sized([{ container: 'nope', requests: { cpu: '1' } }]);
    expect(nodeSizingText(invalid, nodeViewsFor(invalid, nodes, []))).toBeUndefined();
    const ds = sized(exampleRules('agent'));
    expect(nodeSizingText(ds, [])).toBeUndefined();
  });
});

describe('the status with the size range', () => {
  const now = new Date('2026-03-01T10:00:00Z');
  const counts = {
    currentNumberScheduled: 3,
    desiredNumberScheduled: 3,
    numberMisscheduled: 0,
    numberReady: 3,
  };

  it('holds the range, and a change of it is a status write', () => {
    const ds = sized(exampleRules('agent'));
    const status = withPlacementStatus({ ...counts }, ds, nodeViewsFor(ds, nodes, []), now);
    expect(nodeSizingStatusOf(status)).toBe('agent cpu 50m-639m memory 186Mi-6Gi');
    const stored = { ...ds, status } as DaemonSet;
    expect(needsStatusWrite(stored, status)).toBe(false);
    const fewer = withPlacementStatus({ ...counts }, ds, nodeViewsFor(ds, nodes.slice(0, 2), []), now);
    expect(nodeSizingStatusOf(fewer)).toBe('agent cpu 50m-160m memory 186Mi-2181Mi');
    expect(needsStatusWrite(stored, fewer)).toBe(true);
  });

  it('drops the range once the rules are gone', () => {
    const ds = sized(exampleRules('agent'));
    const stored = { ...ds, status: { ...counts, nodeSizing: 'agent cpu 50m' } } as DaemonSet;
    const plain = { ...(aDaemonSet('agent') as DaemonSet), status: stored.status };
    const status = withPlacementStatus({ ...counts }, plain, nodeViewsFor(plain, nodes, []), now);
    expect('nodeSizing' in status).toBe(false);
    expect(needsStatusWrite(stored, status)).toBe(true);
  });
});
