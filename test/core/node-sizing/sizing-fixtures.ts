/** Shared node-sizing fixtures: EKS-like nodes of three sizes and the rules of the examples. */
import type { V1Container, V1Node } from '@kubernetes/client-node';
import { aNode } from '../../support/builders.ts';

export const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';

/** Allocatable amounts of three EKS nodes, small to large. */
export const LARGE = { cpu: '1930m', memory: '7134148Ki', pods: '29' };
export const XL8 = { cpu: '31850m', memory: '127414588Ki', pods: '234' };
export const XL32 = { cpu: '127610m', memory: '1031864320Ki', pods: '737' };

/**
 * The sized container of the reconcile tests: a limit twice its memory request, equal for cpu. A
 * new object each call: test files of a worker share their modules, and a DaemonSet built from it
 * goes to the in-process store.
 */
export function agentContainer(): V1Container {
  return {
    name: 'agent',
    image: 'agent:1',
    resources: {
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { cpu: '100m', memory: '512Mi' },
    },
  };
}

/** A node of instance `type` reporting `allocatable`. */
export function eksNode(name: string, type: string, allocatable: Record<string, string>): V1Node {
  const node = aNode(name, { labels: { [INSTANCE_TYPE]: type } });
  return { ...node, status: { ...node.status, allocatable } };
}

/** The example rules for `container`: shares of allocatable, clamped, and 6Gi on r6a.32xlarge. */
export function exampleRules(container: string) {
  return [
    {
      container,
      perAllocatable: { cpu: '0.5%', memory: '1%' },
      perAllocatablePod: { memory: '4Mi' },
      min: { cpu: '50m', memory: '128Mi' },
      max: { cpu: '2', memory: '4Gi' },
    },
    {
      container,
      nodeSelector: { matchLabels: { [INSTANCE_TYPE]: 'r6a.32xlarge' } },
      requests: { memory: '6Gi' },
    },
  ];
}
