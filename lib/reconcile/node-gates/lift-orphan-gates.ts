/**
 * The node step's part for gate keys no DaemonSet gates any more (docs/design.md, 26. Node
 * readiness gates). When the last DaemonSet gating a key is deleted or stops gating it, the router
 * sends every node's `node` step naming the key (`gateKeys`). This part hands the named keys to
 * the rule of `core/node-gates/orphan-gate-keys.ts` (which of them are orphaned, and the decision with their
 * NoSchedule taints lifted); `node-gates/gate-step.ts` writes that in the same guarded merge patch
 * as the rest of the gate decision, and records it as any lift.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { NodeGateDecision } from '../../core/node-gates/gate-decision.ts';
import { carriesCandidateGateTaint, withOrphanGatesLifted } from '../../core/node-gates/orphan-gate-keys.ts';
import type { NodeMessage } from '../../messages/work-message.ts';

/**
 * True when `node` (undefined: gone) carries the NoSchedule taint of a key `message` names as
 * possibly no longer gated: the gate part must then run even when no DaemonSet gates anything now.
 */
export function carriesNamedGateTaint(
  message: Readonly<NodeMessage>,
  node: Readonly<V1Node> | undefined,
): boolean {
  return carriesCandidateGateTaint(node, message.gateKeys ?? []);
}

/**
 * `decision` for `node` with the taints of the keys `message` names lifted when no DaemonSet of the
 * decision gates them (`withOrphanGatesLifted`); the decision itself when the message names none.
 */
export function withNamedOrphansLifted(
  message: Readonly<NodeMessage>,
  node: Readonly<V1Node>,
  decision: NodeGateDecision,
): NodeGateDecision {
  const keys = message.gateKeys ?? [];
  return keys.length === 0 ? decision : withOrphanGatesLifted(node, decision, keys);
}
