import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { fitErrorMessage, preemptionMessage } from '../../../lib/sim/scheduler/fit-error.ts';
import type { CountedPod } from '../../../lib/sim/scheduler/node-usage.ts';
import {
  type BoundPods,
  type NodeCandidates,
  placePod,
} from '../../../lib/sim/scheduler/scheduler-filter.ts';

describe('fitErrorMessage (framework.FitError.Error)', () => {
  it('counts every reason and sorts "<count> <reason>" as strings, as sort.Strings does', () => {
    const reasons = new Map([
      ['Insufficient memory', 1],
      ["node(s) didn't match Pod's node affinity/selector", 2],
      ['Insufficient cpu', 12],
      ['Too many pods', 3],
    ]);
    expect(fitErrorMessage(18, reasons, undefined)).toBe(
      "0/18 nodes are available: 1 Insufficient memory, 12 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector, 3 Too many pods.",
    );
  });
});

const GI = 1024 ** 3;
const allocatable = { cpu: 2000, memory: 8 * GI, ephemeralStorage: 0, pods: 10 };
const counted = (cpu: number, priority: number): CountedPod => ({
  node: 'n',
  priority,
  requests: { cpu, memory: 0, ephemeralStorage: 0 },
});

describe('preemptionMessage (DefaultPreemption dry run)', () => {
  const preemptor = { request: { cpu: 1000, memory: 0, ephemeralStorage: 0 }, priority: 100 };
  const full = (pods: CountedPod[]) => ({
    allocatable,
    requested: {
      cpu: pods.reduce((s, p) => s + p.requests.cpu, 0),
      memory: 0,
      ephemeralStorage: 0,
      pods: pods.length,
    },
    pods,
  });
  it('no pod of lower priority: no victims; other nodes: not helpful', () => {
    expect(preemptionMessage(3, preemptor, [full([counted(1500, 100)])])).toBe(
      'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
  });
  it('the pod still misfits without the victims: the reasons of that fit', () => {
    expect(preemptionMessage(1, preemptor, [full([counted(1500, 1000), counted(100, 0)])])).toBe(
      'preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
  });
  it('a node where evicting victims makes room is a candidate: no preemption part', () => {
    expect(preemptionMessage(2, preemptor, [full([counted(1500, 0)])])).toBeUndefined();
  });
});

describe('placePod with NodeResourcesFit after the other filters', () => {
  const node = (name: string, labels: Record<string, string> = {}): V1Node => ({
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    status: { allocatable: { cpu: '2', memory: '8Gi', pods: '10' } },
  });
  const nodes = [node('a', { pool: 'x' }), node('b'), node('c')];
  const candidates: NodeCandidates = {
    get: (name) => nodes.find((n) => n.metadata?.name === name),
    all: () => nodes,
    size: nodes.length,
  };
  const bound = (perNode: Record<string, CountedPod[]>): BoundPods => ({
    requested: (n) => {
      const pods = perNode[n] ?? [];
      const cpu = pods.reduce((s, p) => s + p.requests.cpu, 0);
      return { cpu, memory: 0, ephemeralStorage: 0, pods: pods.length };
    },
    podsOn: (n) => perNode[n] ?? [],
  });
  const spec = (cpu: string, over: Partial<V1PodSpec> = {}): V1PodSpec => ({
    containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }],
    ...over,
  });

  it('goes to the node with room', () => {
    expect(placePod(spec('1'), candidates, bound({ a: [counted(1500, 0)] }))).toEqual({ node: 'b' });
  });
  it('a node a selector rejects is not counted as short of cpu (the first failing filter wins)', () => {
    const decision = placePod(
      spec('1', { nodeSelector: { pool: 'x' } }),
      candidates,
      bound({ a: [counted(1500, 0)] }),
    );
    expect(decision).toEqual({
      unschedulable:
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. " +
        'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    });
  });
  it('a higher-priority pod that could preempt gets the filters message alone', () => {
    const decision = placePod(
      spec('1', { nodeSelector: { pool: 'x' }, priority: 2000001000 }),
      candidates,
      bound({ a: [counted(1500, 0)] }),
    );
    expect(decision).toEqual({
      unschedulable:
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.",
    });
  });
});
