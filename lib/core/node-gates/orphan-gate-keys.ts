/**
 * Gate keys no DaemonSet gates any more (docs/design.md, 26. Node readiness gates): when the last
 * DaemonSet gating a key is deleted or stops gating it, nodes still carry that key's NoSchedule
 * taint, which nothing would ever lift — `decideNodeGates` decides only the keys some DaemonSet
 * gates. The `node` messages sent for such a change name the keys that may have stopped being
 * gated; here a named key that the node's decision does not gate and that the node carries is
 * lifted, in the same write as the rest of the decision.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { GateKeyDecision, NodeGateDecision } from './gate-decision.ts';
import { isGateTaint } from './gate-declaration.ts';

/**
 * The keys of `candidates` that no DaemonSet of `decision` gates (dry runs count as gating: a key
 * in a dry run is not everynode's to change) and that `node` carries as a NoSchedule taint; each
 * once, sorted. Its other taints of those keys (NoExecute, PreferNoSchedule) are no gate's.
 */
export function orphanGateKeys(
  node: Readonly<V1Node>,
  decision: Readonly<NodeGateDecision>,
  candidates: readonly string[],
): string[] {
  const gated = new Set(decision.keys.map((k) => k.key));
  const orphans = new Set(candidates.filter((key) => !gated.has(key) && carriesGateTaint(node, key)));
  return [...orphans].sort();
}

/**
 * True when `node` (undefined: gone) carries the NoSchedule gate taint of one of `candidates`: one
 * of them may be orphaned, so the node's gates must be decided even when no DaemonSet gates
 * anything now.
 */
export function carriesCandidateGateTaint(
  node: Readonly<V1Node> | undefined,
  candidates: readonly string[],
): boolean {
  return node !== undefined && candidates.some((key) => carriesGateTaint(node, key));
}

/** True when `node` carries the NoSchedule gate taint of `key`. */
function carriesGateTaint(node: Readonly<V1Node>, key: string): boolean {
  return (node.spec?.taints ?? []).some((t) => isGateTaint(t, key));
}

/** The decision of an orphaned key: lifted, whatever any mode said, and never marked released. */
function orphanDecision(key: string): GateKeyDecision {
  return {
    key,
    // No DaemonSet gives it a mode; as a Continuous lift, it writes no released marker.
    mode: 'Continuous',
    dryRun: false,
    tainted: true,
    waitingFor: [],
    released: false,
    action: 'lift',
    timedOut: false,
    orphaned: true,
  };
}

/**
 * `decision` for `node` with the taints of its orphaned `candidates` (see {@link orphanGateKeys})
 * lifted too: their keys added as `orphaned` lifts, and the taints written without them (on top of
 * the decision's own lifts and restores). The same decision when none is orphaned. The condition
 * does not change: an orphaned key waits for nothing.
 */
export function withOrphanGatesLifted(
  node: Readonly<V1Node>,
  decision: NodeGateDecision,
  candidates: readonly string[],
): NodeGateDecision {
  const orphans = orphanGateKeys(node, decision, candidates);
  if (orphans.length === 0) return decision;
  const current = decision.taints ?? (node.spec?.taints ?? []).map((t) => ({ ...t }));
  const taints = current.filter((t) => !orphans.some((key) => isGateTaint(t, key)));
  const keys = [...decision.keys, ...orphans.map(orphanDecision)].sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  return { ...decision, keys, taints };
}
