import { describe, expect, it } from 'vitest';
import { nodeSizingOf } from '../../../lib/core/node-sizing/node-sizing.ts';
import { sizingRange, sizingRangeText } from '../../../lib/core/node-sizing/sizing-range.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { eksNode, exampleRules, INSTANCE_TYPE, LARGE, XL8, XL32 } from './sizing-fixtures.ts';

const nodes = [
  eksNode('a', 'm6a.large', LARGE),
  eksNode('b', 'm6a.8xlarge', XL8),
  eksNode('c', 'r6a.32xlarge', XL32),
];

const ds = aDaemonSet('d', {
  annotations: {
    'everynode.dev/node-sizing': JSON.stringify([
      ...exampleRules('agent'),
      {
        container: 'proxy',
        nodeSelector: { matchLabels: { [INSTANCE_TYPE]: 'm6a.large' } },
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

  it('sizes nodes of one allocatable apart when a selected label tells them apart', () => {
    // Same allocatable; one carries the label the fixed entry selects, one the Exists rule's key.
    const tiered = aDaemonSet('t', {
      annotations: {
        'everynode.dev/node-sizing': JSON.stringify([
          { container: 'agent', perAllocatable: { cpu: '1%' } },
          { container: 'agent', nodeSelector: { matchLabels: { tier: 'gold' } }, requests: { cpu: '300m' } },
          {
            container: 'agent',
            nodeSelector: { matchExpressions: [{ key: 'spot', operator: 'Exists' }] },
            requests: { cpu: '5m' },
          },
        ]),
      },
      podSpec: { containers: [{ name: 'agent', image: 'a' }] },
    });
    const labelled = (name: string, labels: Record<string, string>) => {
      const node = eksNode(name, 'm6a.large', LARGE);
      return { ...node, metadata: { ...node.metadata, labels: { ...node.metadata?.labels, ...labels } } };
    };
    const spec = tiered.spec?.template.spec ?? { containers: [] };
    const rules = nodeSizingOf(tiered);
    const plain = [labelled('p1', {}), labelled('p2', {})];
    expect(sizingRangeText(sizingRange(spec, rules, plain))).toBe('agent cpu 20m');
    expect(sizingRangeText(sizingRange(spec, rules, [...plain, labelled('g', { tier: 'gold' })]))).toBe(
      'agent cpu 20m-300m',
    );
    expect(sizingRangeText(sizingRange(spec, rules, [...plain, labelled('s', { spot: '' })]))).toBe(
      'agent cpu 5m-20m',
    );
  });

  it('is empty without rules or nodes', () => {
    expect(sizingRange(ds.spec?.template.spec ?? { containers: [] }, [], nodes)).toEqual({});
    expect(sizingRange(ds.spec?.template.spec ?? { containers: [] }, nodeSizingOf(ds), [])).toEqual({});
  });
});
