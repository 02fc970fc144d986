import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeAllocatable, podRequests } from '../../../lib/sim/pod-requests.ts';
import { insufficientResources } from '../../../lib/sim/scheduler/node-fit.ts';

const node: V1Node = {
  metadata: { name: 'n' },
  status: {
    allocatable: { cpu: '1930m', memory: '7408576Ki', pods: '3', 'ephemeral-storage': '18242267924' },
  },
};
const allocatable = nodeAllocatable(node);
const GI = 1024 ** 3;
const nothingBound = { cpu: 0, memory: 0, ephemeralStorage: 0, pods: 0 };

const container = (requests?: Record<string, string>) => ({
  name: 'c',
  image: 'busybox',
  ...(requests ? { resources: { requests } } : {}),
});

describe('insufficientResources (NodeResourcesFit fitsRequest)', () => {
  const cases: {
    name: string;
    requests?: Record<string, string>;
    bound?: Partial<typeof nothingBound>;
    expected: string[];
  }[] = [
    { name: 'a pod within allocatable fits', requests: { cpu: '1930m', memory: '7408576Ki' }, expected: [] },
    { name: 'a pod requesting nothing fits an empty node', expected: [] },
    {
      name: 'one millicore more than allocatable is insufficient cpu',
      requests: { cpu: '1931m' },
      expected: ['Insufficient cpu'],
    },
    {
      name: 'memory is checked against what bound pods left',
      requests: { memory: '1Gi' },
      bound: { memory: 7 * GI },
      expected: ['Insufficient memory'],
    },
    {
      name: 'ephemeral storage too',
      requests: { 'ephemeral-storage': '17Gi' },
      expected: ['Insufficient ephemeral-storage'],
    },
    {
      name: 'a full node refuses even a pod that requests nothing',
      bound: { pods: 3 },
      expected: ['Too many pods'],
    },
    {
      name: 'every reason is kept, pods first, then cpu, memory, ephemeral-storage',
      requests: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' },
      bound: { pods: 3, cpu: 1000, memory: 7 * GI, ephemeralStorage: 18 * GI },
      expected: [
        'Too many pods',
        'Insufficient cpu',
        'Insufficient memory',
        'Insufficient ephemeral-storage',
      ],
    },
    {
      name: 'a resource the pod does not request is not checked, even on an overcommitted node',
      requests: { memory: '1Mi' },
      bound: { cpu: 5000 },
      expected: [],
    },
  ];
  it.each(cases)('$name', ({ requests, bound, expected }) => {
    const request = podRequests({ spec: { containers: [container(requests)] } });
    expect(insufficientResources(request, { ...nothingBound, ...bound }, allocatable)).toEqual(expected);
  });

  it('a node reporting no allocatable takes no pod', () => {
    expect(insufficientResources(podRequests({}), nothingBound, nodeAllocatable({}))).toEqual([
      'Too many pods',
    ]);
  });
});

describe('podRequests (resourcehelper.PodRequests)', () => {
  const spec = (over: Partial<V1PodSpec>): Partial<V1PodSpec> => ({ containers: [], ...over });
  const cases: { name: string; spec: Partial<V1PodSpec>; expected: { cpu: number; memory: number } }[] = [
    {
      name: 'app containers add up',
      spec: spec({
        containers: [container({ cpu: '2', memory: '1G' }), container({ cpu: '1', memory: '1G' })],
      }),
      expected: { cpu: 3000, memory: 2e9 },
    },
    {
      name: 'init containers take the max per resource against the sum (upstream example: 3 cpu, 3G)',
      spec: spec({
        initContainers: [container({ cpu: '2', memory: '1G' }), container({ cpu: '2', memory: '3G' })],
        containers: [container({ cpu: '2', memory: '1G' }), container({ cpu: '1', memory: '1G' })],
      }),
      expected: { cpu: 3000, memory: 3e9 },
    },
    {
      name: 'a sidecar adds to the sum and to every init container after it',
      spec: spec({
        initContainers: [{ ...container({ cpu: '500m' }), restartPolicy: 'Always' }, container({ cpu: '2' })],
        containers: [container({ cpu: '1' })],
      }),
      expected: { cpu: 2500, memory: 0 },
    },
    {
      name: 'overhead is added to the requests',
      spec: spec({
        containers: [container({ cpu: '250m', memory: '64Mi' })],
        overhead: { cpu: '50m', memory: '16Mi' },
      }),
      expected: { cpu: 300, memory: 80 * 1024 ** 2 },
    },
    {
      name: 'containers without requests count zero: the non-zero defaults are for scoring only',
      spec: spec({ containers: [container(), container()] }),
      expected: { cpu: 0, memory: 0 },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(podRequests({ spec })).toMatchObject(expected);
  });

  describe('a bound pod with status resources (UseStatusResources)', () => {
    const pod = (reason?: string) => ({
      spec: { containers: [container({ cpu: '200m' })] },
      status: {
        containerStatuses: [
          { name: 'c', resources: { requests: { cpu: '500m' } }, allocatedResources: { cpu: '500m' } },
        ],
        conditions: reason ? [{ type: 'PodResizePending', reason }] : [],
      },
    });
    it('holds the larger of spec and status while a shrink is in flight', () => {
      expect(podRequests(pod(), true).cpu).toBe(500);
      expect(podRequests(pod(), false).cpu).toBe(200);
    });
    it('counts only the status when the resize is Infeasible', () => {
      const infeasible = pod('Infeasible');
      infeasible.spec.containers = [container({ cpu: '8' })];
      expect(podRequests(infeasible, true).cpu).toBe(500);
    });
  });
});
