/**
 * Which watch events reach node readiness gate decisions at once
 * (docs/design.md, 26. Node readiness gates). A node's gate taint is lifted when every gating
 * DaemonSet that should run there has an available pod there, and (Continuous) restored when one
 * stops being available. So a change of such a pod's readiness must reach the node's `node` step
 * in one trip through the pipeline, never wait out a status-refresh window
 * (docs/design.md, 12. The status-refresh window) in the `StatusCoalescer` — and only such a
 * change: every other one would cost a node step that changes nothing. And a change of a
 * DaemonSet's gate itself reaches every node's: its trigger carries the gate change.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { type GateChange, gateChangeBetween, mergeGateChanges } from '../../core/node-gates/gate-change.ts';
import { isPodReady } from '../../core/pod-availability.ts';
import type { WatchedObjects, WatchedResource } from '../../kube/kube-port.ts';
import { MAX_GATE_CHANGE_KEYS } from '../../messages/trigger.ts';
import type { ObjectEvent } from '../cluster-view/facet-cache.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import { gateMovesOnNode } from './gate-pods.ts';

/**
 * The changes of a gating pod that can move its node's gate: whether it is available there turns
 * on its readiness and its deletion, and a terminal phase (`terminal`) ends it. A phase alone
 * (Pending to Running, not yet ready) changes nothing.
 */
const GATE_MOVING_CHANGES: ReadonlySet<string> = new Set(['ready', 'terminal', 'deleting']);

/**
 * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` can change
 * its node's gate: the pod's DaemonSet has a valid gate (as `context` knows the managed
 * DaemonSets), the event is its removal, a change of its readiness or deletion, its turning
 * terminal, or its creation already ready (a replayed watch can show one) — and the gate can still
 * move on the node (`gateMovesOnNode`: a BootstrapOnly gate only while the node carries its taint;
 * a readiness change not while another gating DaemonSet's pods there are all not ready). A pod
 * created not ready, started but not ready, bound or released changes no node's gate: it was not
 * available before and is not now. So the pods of a gating DaemonSet on nodes already released
 * cost no node step, and their status changes are coalesced as any other's.
 */
export function changesNodeGate(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  if (context === undefined || !context.gatesNode(pod)) return false;
  if (type === 'DELETED') return gateMovesOnNode(context, pod, false);
  if (type === 'ADDED') return isPodReady(pod) && gateMovesOnNode(context, pod, true);
  if (!changes.some((change) => GATE_MOVING_CHANGES.has(change))) return false;
  return gateMovesOnNode(context, pod, !changes.includes('deleting'));
}

/**
 * The gate change the DaemonSet `event` makes (docs/design.md, 26. Node readiness gates), judged
 * before `context` follows it: the DaemonSet's effective gate (`effectiveGateOf`) as the relay last
 * saw it against the event's — declared (a DaemonSet first seen with a gate included), removed,
 * re-keyed, its mode or dry run changed, or deleted or being deleted while gating. Undefined for
 * other resources, without a context, and when no gate changed.
 */
export function gateChangeOf<R extends WatchedResource>(
  context: RelayNodeContext | undefined,
  resource: R,
  event: Readonly<ObjectEvent<WatchedObjects[R]>> | undefined,
): GateChange | undefined {
  if (context === undefined || resource !== 'daemonsets' || event === undefined) return undefined;
  const ds = event.object as DaemonSet;
  const known = context.daemonSet(ds.metadata?.uid ?? '');
  if (event.type === 'DELETED') return gateChangeBetween(known ?? ds, undefined);
  return gateChangeBetween(known, ds);
}

/**
 * The gate changes between what `context` knew of the DaemonSets and their relist `listed` (after
 * 410 Gone, the watch's missed events may have changed gates), merged; undefined for other
 * resources and when no gate changed. At most `MAX_GATE_CHANGE_KEYS` keys, the first in order.
 */
export function relistGateChange<R extends WatchedResource>(
  context: RelayNodeContext | undefined,
  resource: R,
  listed: readonly Readonly<WatchedObjects[R]>[],
): GateChange | undefined {
  if (context === undefined || resource !== 'daemonsets') return undefined;
  const uidOf = (ds: Readonly<DaemonSet>) => ds.metadata?.uid ?? '';
  const before = new Map(context.daemonSets().map((ds) => [uidOf(ds), ds]));
  const after = new Map((listed as readonly DaemonSet[]).map((ds) => [uidOf(ds), ds]));
  const uids = new Set([...before.keys(), ...after.keys()]);
  const change = mergeGateChanges([...uids].map((uid) => gateChangeBetween(before.get(uid), after.get(uid))));
  return change && { keys: change.keys.slice(0, MAX_GATE_CHANGE_KEYS) };
}
