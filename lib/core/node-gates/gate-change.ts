/**
 * When a DaemonSet's node readiness gate changes, every node must follow at once
 * (docs/design.md, 26. Node readiness gates), not at its next gating pod change: the taints of a
 * key no DaemonSet gates any more are lifted, and a gate made `Continuous` taints the nodes whose
 * gating pod is not available. This module says, from a DaemonSet as it was and as it is, whether
 * its effective gate changed and which gate keys the nodes must be looked at for.
 */
import type { DaemonSet } from '../daemon-set.ts';
import { type NodeReadinessGate, nodeReadinessOf } from './gate-declaration.ts';

/** A change of the gates in use, and the keys whose taints may have stopped being gated. */
export interface GateChange {
  /**
   * The taint keys of the gates before and after the change that were not dry runs, each once,
   * sorted: the keys whose taints everynode may hold on nodes. A dry-run gate never changes a
   * taint, so a key only a dry run gated is never lifted for it (another controller may own it).
   */
  readonly keys: string[];
}

/**
 * The gate `ds` applies to nodes: its valid gate (`nodeReadinessOf`), none while it is being
 * deleted (the node step then counts it out, as any DaemonSet that may not act), none for no
 * DaemonSet.
 */
export function effectiveGateOf(ds: Readonly<DaemonSet> | undefined): NodeReadinessGate | undefined {
  if (ds === undefined || ds.metadata?.deletionTimestamp) return undefined;
  return nodeReadinessOf(ds);
}

/** True when the two gates decide nodes alike: same key, mode and dry run (a timeout decides no taint). */
function sameGate(a: NodeReadinessGate | undefined, b: NodeReadinessGate | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.taintKey === b.taintKey && a.mode === b.mode && a.dryRun === b.dryRun;
}

/**
 * The gate change from `before` to `after` (the same DaemonSet as last seen and as it is now;
 * undefined for none: not yet seen, or deleted), or undefined when its effective gate is the same.
 */
export function gateChangeBetween(
  before: Readonly<DaemonSet> | undefined,
  after: Readonly<DaemonSet> | undefined,
): GateChange | undefined {
  const [was, is] = [effectiveGateOf(before), effectiveGateOf(after)];
  if (sameGate(was, is)) return undefined;
  return { keys: heldKeys([was, is]) };
}

/**
 * The union of `changes` (the DaemonSets of a relist, say); undefined when there is none.
 */
export function mergeGateChanges(changes: Iterable<GateChange | undefined>): GateChange | undefined {
  let merged: Set<string> | undefined;
  for (const change of changes) {
    if (change === undefined) continue;
    merged ??= new Set();
    for (const key of change.keys) merged.add(key);
  }
  return merged === undefined ? undefined : { keys: [...merged].sort() };
}

function heldKeys(gates: readonly (NodeReadinessGate | undefined)[]): string[] {
  const keys = new Set<string>();
  for (const gate of gates) if (gate !== undefined && !gate.dryRun) keys.add(gate.taintKey);
  return [...keys].sort();
}
