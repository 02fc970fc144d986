/**
 * Placement and pod creation with the node readiness gate keys tolerated (docs/design.md, 26. Node
 * readiness gates): everynode's daemon pods tolerate every gate key in use, as they tolerate
 * `not-ready`, so its DaemonSets still land on a node its gates keep from other workloads — the
 * gating DaemonSets' own pods first of all, whose readiness is what lifts the gate.
 *
 * The tolerations are added to the pod at creation, like the automatic ones, never to the
 * template: the revision hash, and so every pod's revision, stays what it was.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Action } from '../core/action.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import { gateKeysFor, isGateTaint } from '../core/node-readiness.ts';
import { type NodeView, nodeViewsFor } from '../core/node-view.ts';
import { type PairState, planPair } from '../core/pair-plan.ts';
import { daemonPodTolerations } from '../core/tolerations.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';

/**
 * The gate keys `ds`'s pods tolerate as far as this process knows: its own gate's and those of the
 * DaemonSets it has read (the pair and DaemonSet steps read one DaemonSet; the node step lists them
 * all and passes them to `gateKeysFor` itself).
 */
export function knownGateKeys(deps: Pick<ReconcileDeps, 'objects'>, ds: Readonly<DaemonSet>): string[] {
  return gateKeysFor(ds, deps.objects.knownDaemonSets());
}

/**
 * `node` as a pod tolerating `gateKeys` sees it: without the NoSchedule taints of those keys, which
 * such a pod tolerates whatever their value (`nodeShouldRunDaemonPod(node, ds, gateKeys)` judges
 * the same). For planning only: its metadata, resourceVersion included, is the node's.
 */
function gateTolerantNode(
  node: Readonly<V1Node> | undefined,
  gateKeys: readonly string[],
): V1Node | undefined {
  const taints = node?.spec?.taints;
  if (node === undefined || gateKeys.length === 0 || taints === undefined) return node as V1Node | undefined;
  const kept = taints.filter((t) => !gateKeys.some((key) => isGateTaint(t, key)));
  if (kept.length === taints.length) return node as V1Node;
  return { ...node, spec: { ...node.spec, taints: kept } };
}

/**
 * `nodeViewsFor` with the placement of pods tolerating `gateKeys`; each view keeps the node as it
 * is (the fan-out's hints carry it to the pair step, which plans with the gate keys it knows).
 */
export function gatedNodeViews(
  ds: Readonly<DaemonSet>,
  nodes: readonly V1Node[],
  pods: readonly V1Pod[],
  gateKeys: readonly string[],
): NodeView[] {
  if (gateKeys.length === 0) return nodeViewsFor(ds, nodes, pods);
  const seen = nodes.map((node) => gateTolerantNode(node, gateKeys) as V1Node);
  // nodeViewsFor returns one view per node in order, then those of vanished nodes.
  return nodeViewsFor(ds, seen, pods).map((view, index) => {
    const node = nodes[index];
    return node === undefined ? view : { ...view, node };
  });
}

/** `actions` with each created pod tolerating the NoSchedule taints of `gateKeys`. */
export function withGateTolerations(actions: readonly Action[], gateKeys: readonly string[]): Action[] {
  if (gateKeys.length === 0) return [...actions];
  return actions.map((action) => {
    if (action.type !== 'create') return action;
    const spec = action.pod.spec ?? { containers: [] };
    const tolerations = daemonPodTolerations(spec, gateKeys);
    return { ...action, pod: { ...action.pod, spec: { ...spec, tolerations } } };
  });
}

/**
 * The pair plan (`planPair`) of a DaemonSet whose pods tolerate `gateKeys`: placed on the node as
 * such a pod sees it, its creates carrying those tolerations.
 */
export function planGatedPair(state: Readonly<PairState>, gateKeys: readonly string[]): Action[] {
  if (gateKeys.length === 0) return planPair(state);
  const actions = planPair({ ...state, node: gateTolerantNode(state.node, gateKeys) });
  return withGateTolerations(actions, gateKeys);
}
