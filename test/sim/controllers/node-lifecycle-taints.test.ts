import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { evictionDelaySeconds } from '../../../lib/sim/controllers/node-lifecycle-eviction.ts';
import { lifecycleTaints } from '../../../lib/sim/controllers/node-lifecycle-taints.ts';
import { fixtureNodes } from '../../../lib/sim/sim-nodes.ts';
import { aNode } from '../../support/builders.ts';

const now = '2026-02-01T00:00:00Z';
const seedNodes = fixtureNodes();

function withReady(node: V1Node, status: string): V1Node {
  return { ...node, status: { conditions: [{ type: 'Ready', status }] } };
}

describe('lifecycleTaints', () => {
  const masterTaint: V1Taint = { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' };
  const cases: { name: string; node: V1Node; expected: unknown }[] = [
    { name: 'a Ready node needs no taints', node: aNode('a'), expected: undefined },
    {
      name: 'Ready=False adds not-ready NoSchedule and NoExecute, stamped',
      node: aNode('a', { ready: false, taints: [masterTaint] }),
      expected: [
        masterTaint,
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: now },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: now },
      ],
    },
    {
      name: 'Ready=Unknown swaps not-ready for unreachable',
      node: withReady(
        aNode('a', {
          taints: [
            { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
          ],
        }),
        'Unknown',
      ),
      expected: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: now },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: now },
      ],
    },
    {
      name: 'Ready again removes the controller taints and keeps the others',
      node: aNode('a', {
        taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, masterTaint],
      }),
      expected: [masterTaint],
    },
    {
      name: 'cordoning adds the unschedulable taint',
      node: aNode('a', { unschedulable: true }),
      expected: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: now }],
    },
    {
      name: 'uncordoning removes it',
      node: aNode('a', { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }),
      expected: [],
    },
    {
      name: 'a user taint with a controller key but another effect is kept',
      node: aNode('a', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'PreferNoSchedule' }] }),
      expected: undefined,
    },
    {
      name: 'memory pressure adds its NoSchedule taint',
      node: {
        ...aNode('a'),
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'MemoryPressure', status: 'True' },
          ],
        },
      },
      expected: [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule', timeAdded: now }],
    },
  ];
  it.each(cases)('$name', ({ node, expected }) => {
    expect(lifecycleTaints(node, now)).toEqual(expected);
  });

  it('leaves every seed node as it is (the fixtures already carry the right taints)', () => {
    expect(seedNodes.map((n) => lifecycleTaints(n, now))).toEqual(seedNodes.map(() => undefined));
  });

  it('is idempotent: applying its result asks for no further change', () => {
    const node = withReady(aNode('a', { unschedulable: true }), 'False');
    const taints = lifecycleTaints(node, now) as V1Taint[];
    expect(lifecycleTaints({ ...node, spec: { ...node.spec, taints } }, now)).toBeUndefined();
  });
});

describe('evictionDelaySeconds', () => {
  const notReady: V1Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
  const gpu: V1Taint = { key: 'dedicated', value: 'gpu', effect: 'NoExecute' };
  const cases: {
    name: string;
    taints: V1Taint[];
    tolerations: Parameters<typeof evictionDelaySeconds>[1];
    expected: number | undefined;
  }[] = [
    {
      name: 'no NoExecute taint: never',
      taints: [{ key: 'x', effect: 'NoSchedule' }],
      tolerations: [],
      expected: undefined,
    },
    { name: 'an untolerated NoExecute taint: at once', taints: [notReady], tolerations: [], expected: 0 },
    {
      name: 'tolerated forever: never',
      taints: [notReady],
      tolerations: [{ key: notReady.key, operator: 'Exists', effect: 'NoExecute' }],
      expected: undefined,
    },
    {
      name: 'the smallest tolerationSeconds of the tolerations used',
      taints: [notReady, gpu],
      tolerations: [
        { key: notReady.key, operator: 'Exists', tolerationSeconds: 300 },
        { key: 'dedicated', operator: 'Equal', value: 'gpu', tolerationSeconds: 60 },
        { key: 'unused', operator: 'Exists', tolerationSeconds: 1 },
      ],
      expected: 60,
    },
    {
      name: 'one of two taints untolerated: at once',
      taints: [notReady, gpu],
      tolerations: [{ key: notReady.key, operator: 'Exists', tolerationSeconds: 300 }],
      expected: 0,
    },
    {
      name: 'tolerationSeconds of zero or less: at once',
      taints: [notReady],
      tolerations: [{ key: notReady.key, operator: 'Exists', tolerationSeconds: -5 }],
      expected: 0,
    },
  ];
  it.each(cases)('$name', ({ taints, tolerations, expected }) => {
    expect(evictionDelaySeconds(taints, tolerations)).toBe(expected);
  });
});
