import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { compareResourceVersions } from '../../../lib/kube/resource-version.ts';
import { RelayObjectCache } from '../../../lib/relay/cluster-view/facet-cache.ts';
import { aNode, aPod } from '../../support/builders.ts';

function nodeAt(
  resourceVersion: string,
  labels: Record<string, string> = {},
  heartbeat = '2026-01-01T00:00:00Z',
): V1Node {
  const node = aNode('worker-1', { labels });
  node.metadata = { ...node.metadata, resourceVersion };
  for (const c of node.status?.conditions ?? []) c.lastHeartbeatTime = new Date(heartbeat);
  return node;
}

const modified = (node: V1Node) => ({
  type: 'MODIFIED' as const,
  object: node,
  resourceVersion: node.metadata?.resourceVersion ?? '',
});

describe('RelayObjectCache', () => {
  const cases = [
    {
      name: 'a heartbeat newer than the listed version is dropped',
      listed: nodeAt('10'),
      events: [nodeAt('11', {}, '2026-01-01T00:00:10Z')],
      forwarded: [false],
    },
    {
      name: 'a label change newer than the listed version is forwarded with its facet',
      listed: nodeAt('10'),
      events: [nodeAt('11', { disk: 'ssd' })],
      forwarded: [true],
    },
    {
      name: 'a replayed event at the listed version is forwarded: its before-state is unknown',
      listed: nodeAt('12', { disk: 'ssd' }),
      events: [nodeAt('12', { disk: 'ssd' })],
      forwarded: [true],
    },
    {
      name: 'a replayed event older than the list is forwarded, and the chain after it is exact',
      listed: nodeAt('12', { disk: 'ssd' }),
      events: [nodeAt('11', { disk: 'ssd' }), nodeAt('12', { disk: 'ssd' }, '2026-01-01T00:00:10Z')],
      forwarded: [true, false],
    },
    {
      name: 'versions that cannot be ordered make the first event forwarded',
      listed: nodeAt('abc'),
      events: [nodeAt('abd', {}, '2026-01-01T00:00:10Z'), nodeAt('abe', {}, '2026-01-01T00:00:20Z')],
      forwarded: [true, false],
    },
  ];

  it.each(cases)('$name', ({ listed, events, forwarded }) => {
    const cache = new RelayObjectCache('nodes');
    cache.seed([listed]);
    expect(events.map((e) => cache.observe(modified(e)).forward)).toEqual(forwarded);
  });

  it('forwards ADDED and DELETED and forgets deleted objects', () => {
    const cache = new RelayObjectCache('nodes');
    expect(cache.observe({ type: 'ADDED', object: nodeAt('5'), resourceVersion: '5' })).toEqual({
      forward: true,
      changes: [],
    });
    expect(cache.size).toBe(1);
    expect(cache.observe({ type: 'DELETED', object: nodeAt('6'), resourceVersion: '6' })).toEqual({
      forward: true,
      changes: [],
    });
    expect(cache.size).toBe(0);
  });

  it("drops a pod's update that only precedes its removal, and forwards its DELETED", () => {
    const cache = new RelayObjectCache('pods');
    const pod = aPod('agent-n1', { nodeName: 'n1', uid: 'p1', resourceVersion: '5' });
    cache.seed([pod]);
    const deleting = (grace: number, finalizers?: string[]) => ({
      ...pod,
      metadata: {
        ...pod.metadata,
        resourceVersion: '6',
        deletionTimestamp: new Date('2026-01-01T00:00:00Z'),
        deletionGracePeriodSeconds: grace,
        ...(finalizers ? { finalizers } : {}),
      },
    });
    expect(cache.observe({ type: 'MODIFIED', object: deleting(0), resourceVersion: '6' })).toEqual({
      forward: false,
    });
    expect(cache.observe({ type: 'DELETED', object: deleting(0), resourceVersion: '7' }).forward).toBe(true);

    // A graceful deletion, or one that finalizers hold, leaves the pod terminating: forwarded.
    for (const lingering of [deleting(30), deleting(0, ['example.com/hold'])]) {
      const again = new RelayObjectCache('pods');
      again.seed([pod]);
      expect(again.observe({ type: 'MODIFIED', object: lingering, resourceVersion: '6' })).toEqual({
        forward: true,
        changes: ['deleting'],
      });
    }
  });

  it('names every facet for an update of an object it never saw', () => {
    const cache = new RelayObjectCache('nodes');
    const verdict = cache.observe(modified(nodeAt('7')));
    expect(verdict).toEqual({
      forward: true,
      changes: ['labels', 'taints', 'unschedulable', 'ready', 'deleting', 'allocatable'],
    });
  });
});

describe('compareResourceVersions (client-go CompareResourceVersion)', () => {
  it.each([
    { a: '9', b: '10', expected: -1 },
    { a: '10', b: '10', expected: 0 },
    { a: '123456789012345678901234567890', b: '99', expected: 1 },
    { a: '010', b: '10', expected: undefined },
    { a: '', b: '1', expected: undefined },
    { a: 'abc', b: '1', expected: undefined },
  ])('$a vs $b → $expected', ({ a, b, expected }) => {
    expect(compareResourceVersions(a, b)).toBe(expected);
  });
});
