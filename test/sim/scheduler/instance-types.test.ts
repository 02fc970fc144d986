import { describe, expect, it } from 'vitest';
import {
  INSTANCE_TYPE_LABEL,
  instanceTypeFor,
  instanceTypeResources,
  kubeReservedCpu,
  kubeReservedMemoryMi,
} from '../../../lib/sim/instance-types.ts';
import { registeredNodeStatus } from '../../../lib/sim/kubelet/kubelet-node-status.ts';
import { simNodes } from '../../../lib/sim/sim-nodes.ts';

describe('EKS kubeReserved (amazon-eks-ami bootstrap)', () => {
  it.each([
    [1, 60],
    [2, 70],
    [4, 80],
    [8, 90], // an 8-vCPU EKS node reports 7910m allocatable
    [16, 110], // a 16-vCPU one 15890m
    [128, 390],
  ])('cpu for %i vCPUs is %im', (vcpus, millicores) => {
    expect(kubeReservedCpu(vcpus)).toBe(millicores);
  });
  it('memory is 11 MiB per max pod plus 255 MiB', () => {
    expect(kubeReservedMemoryMi(29)).toBe(574);
    expect(kubeReservedMemoryMi(737)).toBe(8362);
  });
});

describe('instance type resources', () => {
  it('m6i.large: 2 vCPU, 29 pods, allocatable = capacity less kubeReserved and evictionHard', () => {
    expect(instanceTypeResources('m6i.large')).toEqual({
      // MemTotal: 8 GiB less the kernel's 2.65%.
      capacity: { cpu: '2', 'ephemeral-storage': '20959212Ki', memory: '8166309Ki', pods: '29' },
      allocatable: {
        cpu: '1930m',
        // 20959212Ki less 10% (float32) less 1Gi: what EKS nodes with a 20 GiB root volume report.
        'ephemeral-storage': '18242267924',
        memory: `${8166309 - (574 + 100) * 1024}Ki`,
        pods: '29',
      },
    });
  });
  it('a type the simulator does not know has no size', () => {
    expect(instanceTypeResources('x9.huge')).toBeUndefined();
    expect(instanceTypeResources(undefined)).toBeUndefined();
  });
  it('generated nodes mix five types deterministically, each sized by its kubelet', () => {
    const nodes = simNodes(20);
    const types = nodes.map((n) => n.metadata?.labels?.[INSTANCE_TYPE_LABEL]);
    expect(types.slice(0, 10)).toEqual([
      'm6i.large',
      'm6i.2xlarge',
      'm6i.large',
      'm6i.xlarge',
      'm6i.8xlarge',
      'm6i.large',
      'm6i.2xlarge',
      'm6i.xlarge',
      'r6a.32xlarge',
      'm6i.xlarge',
    ]);
    expect(types.slice(10)).toEqual(types.slice(0, 10));
    expect(instanceTypeFor(0).name).toBe('m6i.xlarge');
    const [first] = nodes;
    if (!first) throw new Error('no node');
    const status = registeredNodeStatus(first, '10.0.0.10', '2026-01-01T00:00:00Z');
    expect(status?.allocatable).toMatchObject({ cpu: '1930m', pods: '29' });
  });
  it('a node without an instance type keeps the default size, and a reported size is kept', () => {
    const [seed] = simNodes(1);
    if (!seed) throw new Error('no node');
    expect(registeredNodeStatus(seed, '10.0.0.10', '')?.allocatable).toEqual({
      cpu: '4',
      memory: '16393932Ki',
      pods: '110',
      'ephemeral-storage': '101430960Ki',
    });
    const sized = { ...seed, status: { ...seed.status, capacity: { cpu: '1' }, allocatable: { cpu: '1' } } };
    expect(registeredNodeStatus(sized, '10.0.0.10', '')?.allocatable).toEqual({ cpu: '1' });
  });
});
