/**
 * What node sizing reads of a node's `status.allocatable`: cpu and memory (the shares) and pods
 * (the per-pod amounts). The relay keeps these of each node, and a change of them is a trigger.
 */
import type { V1Node } from '@kubernetes/client-node';

/** The allocatable resources node sizing reads. */
export const SIZING_ALLOCATABLE = ['cpu', 'memory', 'pods'] as const;

/** The node's allocatable amounts node sizing reads; undefined when it reports none of them. */
export function sizingAllocatable(node: Readonly<V1Node>): Record<string, string> | undefined {
  const kept = SIZING_ALLOCATABLE.flatMap((name) => {
    const amount = node.status?.allocatable?.[name];
    return amount === undefined ? [] : [[name, amount] as const];
  });
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}
