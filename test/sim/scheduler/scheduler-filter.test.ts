import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  type BoundPods,
  type NodeCandidates,
  pinnedNodeNames,
  placePod,
} from '../../../lib/sim/scheduler/scheduler-filter.ts';
import { fixtureNodes } from '../../../lib/sim/sim-nodes.ts';
import { aNode } from '../../support/builders.ts';

/** The allocatable a kubelet reports for a node without an instance type. */
const allocatable = { cpu: '4', memory: '16393932Ki', pods: '110', 'ephemeral-storage': '101430960Ki' };
const registered = (node: V1Node): V1Node => ({ ...node, status: { ...node.status, allocatable } });
const seedNodes = fixtureNodes().map(registered);

/** Bound pods as many as `counts` says per node, requesting nothing. */
function boundPods(counts: Readonly<Record<string, number>> = {}): BoundPods {
  const nothing = { cpu: 0, memory: 0, ephemeralStorage: 0 };
  return { requested: (n) => ({ ...nothing, pods: counts[n] ?? 0 }), podsOn: () => [] };
}

function candidates(unregistered: readonly V1Node[]): NodeCandidates {
  const nodes = unregistered.map(registered);
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  return { get: (name) => byName.get(name), all: () => byName.values(), size: byName.size };
}

const pinTo = (...names: string[]): Partial<V1PodSpec> => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: names }] }],
      },
    },
  },
});

const daemonTolerations: V1PodSpec['tolerations'] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

const suffix = (n: number): string =>
  ` preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`;

describe('placePod on the seed nodes', () => {
  const cases: {
    name: string;
    spec: Partial<V1PodSpec>;
    expected: { node: string } | { unschedulable: string };
  }[] = [
    { name: 'a plain pod goes to the first plain node by name', spec: {}, expected: { node: 'worker-1' } },
    {
      name: 'nodeSelector disk=ssd picks worker-ssd',
      spec: { nodeSelector: { disk: 'ssd' } },
      expected: { node: 'worker-ssd' },
    },
    {
      name: 'a daemon pod pinned to cordoned-1 that tolerates unschedulable is bound there',
      spec: { ...pinTo('cordoned-1'), tolerations: daemonTolerations },
      expected: { node: 'cordoned-1' },
    },
    {
      name: 'a pinned pod without the unschedulable toleration stays pending',
      spec: pinTo('cordoned-1'),
      expected: {
        unschedulable: `0/6 nodes are available: 1 node(s) were unschedulable, 5 node(s) didn't satisfy plugin(s) [NodeAffinity].${suffix(6)}`,
      },
    },
    {
      name: 'a pod pinned to the master without its toleration names the taint',
      spec: pinTo('master-1'),
      expected: {
        unschedulable: `0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/master: }, 5 node(s) didn't satisfy plugin(s) [NodeAffinity].${suffix(6)}`,
      },
    },
    {
      name: 'a pod pinned to the not-ready node is held off by the NoSchedule not-ready taint even with daemon tolerations',
      spec: { ...pinTo('notready-1'), tolerations: daemonTolerations },
      expected: {
        unschedulable: `0/6 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 5 node(s) didn't satisfy plugin(s) [NodeAffinity].${suffix(6)}`,
      },
    },
    {
      name: 'a selector no node matches lists every reason, sorted',
      spec: { nodeSelector: { disk: 'nvme' } },
      expected: {
        unschedulable:
          "0/6 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node-role.kubernetes.io/master: }, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector." +
          suffix(6),
      },
    },
    {
      name: 'tolerating dedicated=gpu NoExecute opens gpu-dedicated',
      spec: {
        ...pinTo('gpu-dedicated'),
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu' }],
      },
      expected: { node: 'gpu-dedicated' },
    },
    {
      name: 'a pin to a node that does not exist fails on every node',
      spec: pinTo('gone'),
      expected: {
        unschedulable: `0/6 nodes are available: 6 node(s) didn't satisfy plugin(s) [NodeAffinity].${suffix(6)}`,
      },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    const pod: V1PodSpec = { containers: [{ name: 'c', image: 'busybox' }], ...spec };
    expect(placePod(pod, candidates(seedNodes), boundPods())).toEqual(expected);
  });
});

describe('placePod choices', () => {
  it('prefers the feasible node with the fewest pods', () => {
    const nodes = candidates([aNode('a'), aNode('b'), aNode('c')]);
    const counts: Record<string, number> = { a: 3, b: 1, c: 1 };
    expect(placePod({}, nodes, boundPods(counts))).toEqual({ node: 'b' });
  });
  it('says no nodes are available in an empty cluster', () => {
    expect(placePod({}, candidates([]), boundPods())).toEqual({
      unschedulable: 'no nodes available to schedule pods',
    });
  });
  it('matches required affinity on matchFields and labels together, terms ORed', () => {
    const nodes = candidates([aNode('a', { labels: { zone: 'x' } }), aNode('b', { labels: { zone: 'y' } })]);
    const spec: V1PodSpec = {
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [{ key: 'zone', operator: 'In', values: ['y'] }],
                matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }],
              },
              {
                matchExpressions: [{ key: 'zone', operator: 'In', values: ['y'] }],
                matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }],
              },
            ],
          },
        },
      },
    };
    expect(placePod(spec, nodes, boundPods())).toEqual({ node: 'b' });
  });
});

describe('pinnedNodeNames', () => {
  const cases: { name: string; spec: Partial<V1PodSpec>; expected: string[] | undefined }[] = [
    { name: 'no affinity pins nothing', spec: {}, expected: undefined },
    { name: 'one matchFields term pins its names', spec: pinTo('n1', 'n2'), expected: ['n1', 'n2'] },
    {
      name: 'a term without matchFields leaves every node eligible',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
                { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
              ],
            },
          },
        },
      },
      expected: undefined,
    },
    {
      name: 'requirements within a term intersect',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchFields: [
                    { key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] },
                    { key: 'metadata.name', operator: 'In', values: ['n2', 'n3'] },
                  ],
                },
              ],
            },
          },
        },
      },
      expected: ['n2'],
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    const names = pinnedNodeNames({ ...spec });
    expect(names ? [...names].sort() : undefined).toEqual(expected);
  });
});
