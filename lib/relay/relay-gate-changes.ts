/**
 * Which pod events of a gating DaemonSet reach its node's gate decision at once
 * (docs/design.md, 26. Node readiness gates): a node's gate taint is lifted when every gating
 * DaemonSet that should run there has an available pod there, and (Continuous) restored when one
 * stops being available. So a change of such a pod's readiness must reach the node's `node` step
 * in one trip through the pipeline, never wait out a status-refresh window
 * (docs/design.md, 12. The status-refresh window) in the `StatusCoalescer`.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { isPodReady } from '../core/pod-availability.ts';
import { NODE_GATE_CHANGES } from '../messages/trigger.ts';
import type { RelayNodeContext } from './relay-node-context.ts';

/**
 * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` can change
 * its node's gate: the pod's DaemonSet has a valid gate (as `context` knows the managed
 * DaemonSets), and the event is its removal, a change of its readiness, phase or deletion, or its
 * creation already ready (a replayed watch can show one). A pod created not ready, bound or
 * released changes no node's gate: it was not available before and is not now.
 */
export function changesNodeGate(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  if (context === undefined || !context.gatesNode(pod)) return false;
  if (type === 'DELETED') return true;
  if (type === 'ADDED') return isPodReady(pod);
  return changes.some((change) => NODE_GATE_CHANGES.has(change));
}
