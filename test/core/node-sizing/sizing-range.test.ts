import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeSizingOf } from '../../../lib/core/node-sizing/node-sizing.ts';
import { sizingRange, sizingRangeText } from '../../../lib/core/node-sizing/sizing-range.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

function node(name: string, type: string, allocatable: Record<string, string>): V1Node {
  const n = aNode(name, { labels: { 'node.kubernetes.io/instance-type': type } });
  return { ...n, status: { ...n.status, allocatable } };
}

const nodes = [
  node('a', 'm6a.large', { cpu: '1930m', memory: '7134148Ki', pods: '29' }),
  node('b', 'm6a.8xlarge', { cpu: '31850m', memory: '127414588Ki', pods: '234' }),
  node('c', 'r6a.32xlarge', { cpu: '127610m', memory: '1031864320Ki', pods: '737' }),
];

const ds = aDaemonSet('d', {
  annotations: {
    'everynode.dev/node-sizing': JSON.stringify([
      {
        container: 'agent',
        perAllocatable: { cpu: '0.5%', memory: '1%' },
        perAllocatablePod: { memory: '4Mi' },
        min: { cpu: '50m', memory: '128Mi' },
        max: { cpu: '2', memory: '4Gi' },
      },
      {
        container: 'agent',
        nodeSelector: { matchLabels: { 'node.kubernetes.io/instance-type': 'r6a.32xlarge' } },
        requests: { memory: '6Gi' },
      },
      {
        container: 'proxy',
        nodeSelector: { matchLabels: { 'node.kubernetes.io/instance-type': 'm6a.large' } },
        requests: { cpu: '20m' },
      },
    ]),
  },
  podSpec: {
    containers: [
      { name: 'agent', image: 'a' },
      { name: 'proxy', image: 'p', resources: { requests: { cpu: '100m' } } },
    ],
  },
});

describe('sizingRange', () => {
  it('gives the smallest and largest request per container and resource across the nodes', () => {
    const range = sizingRange(ds.spec?.template.spec ?? { containers: [] }, nodeSizingOf(ds), nodes);
    expect(range).toEqual({
      agent: { cpu: { min: '50m', max: '639m' }, memory: { min: '186Mi', max: '6Gi' } },
      proxy: { cpu: { min: '20m', max: '100m' } },
    });
    expect(sizingRangeText(range)).toBe('agent cpu 50m-639m memory 186Mi-6Gi, proxy cpu 20m-100m');
  });

  it('shows one value when every node gets the same', () => {
    const range = sizingRange(
      ds.spec?.template.spec ?? { containers: [] },
      nodeSizingOf(ds),
      nodes.slice(0, 1),
    );
    expect(sizingRangeText(range)).toBe('agent cpu 50m memory 186Mi, proxy cpu 20m');
  });

  it('is empty without rules or nodes', () => {
    expect(sizingRange(ds.spec?.template.spec ?? { containers: [] }, [], nodes)).toEqual({});
    expect(sizingRange(ds.spec?.template.spec ?? { containers: [] }, nodeSizingOf(ds), [])).toEqual({});
  });
});
