/**
 * Whether a gating pod's change can still move its node's gate, as the relay knows the node, its
 * pods and the managed DaemonSets (docs/design.md, 26. Node readiness gates). Each change forwarded
 * as gating costs a `node` step, in the node's FIFO group: one that cannot move the gate costs the
 * step for nothing, and holds up the node's next message — the one that can — behind it.
 *
 * - A BootstrapOnly key moves only while the node carries its taint: an untainted node was released
 *   (or never gated) and stays so whatever its pods do. A key any DaemonSet gates Continuous moves
 *   on every node (it is restored as well as lifted).
 * - The readiness of one gating pod moves nothing while another DaemonSet gating the same key keeps
 *   the gate closed anyway: it should run on the node, has live pods there and none of them ready.
 *   The readiness of those pods is an event of their own, and the last to turn ready is forwarded:
 *   the gating pods of a joining node, ready within moments of each other, cost one node step.
 *
 * What the relay does not know counts as movable: a node not seen yet, a DaemonSet without pods on
 * the node (its pods' readiness comes later anyway), a removal or a deletion.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { isActionable } from '../../core/actionable.ts';
import { controllerOf } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import {
  isGateTaint,
  type NodeReadinessGate,
  nodeReadinessOf,
} from '../../core/node-gates/gate-declaration.ts';
import { nodeShouldRunDaemonPod } from '../../core/placement.ts';
import { type NodeHint, nodeFromHint, type PodHint } from '../../messages/pair-hints.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';

/** What the relay knows of a DaemonSet for gates, worked out once per watched version of it. */
interface GateFacts {
  readonly gate: NodeReadinessGate | undefined;
  /** The node step acts for it: not being deleted, selecting something, valid (`isActionable`). */
  readonly actionable: boolean;
}

const facts = new WeakMap<Readonly<DaemonSet>, GateFacts>();

function factsOf(ds: Readonly<DaemonSet>): GateFacts {
  let known = facts.get(ds);
  if (known === undefined) {
    known = { gate: nodeReadinessOf(ds), actionable: isActionable(ds) };
    facts.set(ds, known);
  }
  return known;
}

/** `ds`'s gate (`nodeReadinessOf`), worked out once per watched version of it. */
export function gateOf(ds: Readonly<DaemonSet>): NodeReadinessGate | undefined {
  return factsOf(ds).gate;
}

/**
 * True when another actionable DaemonSet gating `key` keeps the gate of `node` closed whatever the
 * pods of `owner` do: it should run on the node (placed as its pods are, every gate key
 * tolerated), has live pods there, and none of them is ready.
 */
function anotherKeepsGateClosed(
  context: RelayNodeContext,
  owner: string,
  key: string,
  node: Readonly<NodeHint>,
): boolean {
  const byDaemonSet = new Map<string, PodHint[]>();
  for (const pod of context.podsOn(node.name)) {
    const uid = pod.controller?.uid;
    if (uid === undefined || uid === owner || pod.deletionTimestamp !== undefined) continue;
    byDaemonSet.set(uid, [...(byDaemonSet.get(uid) ?? []), pod]);
  }
  let placed: V1Node | undefined;
  let gateKeys: string[] | undefined;
  for (const [uid, pods] of byDaemonSet) {
    const ds = context.daemonSet(uid);
    if (ds === undefined || pods.some((pod) => pod.ready)) continue;
    const { gate, actionable } = factsOf(ds);
    if (!actionable || gate?.taintKey !== key) continue;
    placed ??= nodeFromHint(node);
    gateKeys ??= [
      ...new Set(context.daemonSets().flatMap((d) => (gateOf(d) ? [gateOf(d)?.taintKey ?? ''] : []))),
    ].sort();
    if (nodeShouldRunDaemonPod(placed, ds, gateKeys).shouldRun) return true;
  }
  return false;
}

/**
 * True when a change of the gating `pod` can move its node's gate (see the module comment);
 * `readiness` says the change is of its readiness or phase (not its removal or deletion), which
 * another DaemonSet's pods not ready there make moot.
 */
export function gateMovesOnNode(
  context: RelayNodeContext,
  pod: Readonly<V1Pod>,
  readiness: boolean,
): boolean {
  const owner = controllerOf(pod)?.uid ?? '';
  const ds = context.daemonSet(owner);
  const key = ds === undefined ? undefined : gateOf(ds)?.taintKey;
  const nodeName = targetNodeName(pod);
  const node = nodeName === undefined ? undefined : context.node(nodeName);
  if (key === undefined || node === undefined) return true;
  const continuous = context
    .daemonSets()
    .some((d) => gateOf(d)?.taintKey === key && gateOf(d)?.mode === 'Continuous');
  if (!continuous && !(node.taints ?? []).some((t) => isGateTaint(t, key))) return false;
  return !readiness || !anotherKeepsGateClosed(context, owner, key, node);
}
