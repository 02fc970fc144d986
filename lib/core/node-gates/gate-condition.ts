/**
 * When the node step writes the `everynode.dev/DaemonSetsReady` condition (docs/design.md, 26. Node
 * readiness gates), pure like the gate decision it follows. Each write is a request and bumps the
 * node's resourceVersion (a guarded taint patch decided on the version before then meets 409), so
 * the condition is written only when what it says changes:
 *
 * - The node shows the condition: written when its status or reason differs from the decided one.
 *   A message that alone changed (waiting for 3 DaemonSets, then 2, then 1) is not written.
 * - The node shows none yet (it is bootstrapping, or never was gated): written True when a gate key
 *   is lifted — the release, a dry run's "would lift", a key no DaemonSet gates any more; written
 *   False when a key timed out, a Continuous key is restored, or the node has bootstrapped behind
 *   its taint for {@link WAITING_SHOWN_AFTER_SECONDS}. A node released within that grace — the
 *   usual join — never shows False, so its release costs three requests (the patch, the condition,
 *   the Event), not four; a slow one tells `kubectl describe node` what it waits for. A node never
 *   gated needs no condition to say so.
 */
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { timestampMillis } from '../pod-availability.ts';
import { DAEMONSETS_READY_CONDITION, type NodeGateDecision } from './gate-decision.ts';

/** How long a node bootstraps behind its gate taint before it is shown False (see the module comment). */
export const WAITING_SHOWN_AFTER_SECONDS = 10;

/** The node's `everynode.dev/DaemonSetsReady` condition; undefined when it has none. */
export function daemonSetsReadyCondition(node: Readonly<V1Node>): V1NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
}

/** True when a key of the decision keeps the node tainted and waiting: it is bootstrapping. */
function bootstrapping(decision: Readonly<NodeGateDecision>): boolean {
  return decision.keys.some((k) => k.tainted && k.action !== 'lift' && k.waitingFor.length > 0);
}

/**
 * Seconds until a node bootstrapping behind its taint without the condition is to be shown False
 * (0: it is due now); undefined when it is not waiting so, or shows the condition already.
 */
export function secondsUntilWaitingShown(
  node: Readonly<V1Node>,
  decision: Readonly<NodeGateDecision>,
  now: Date,
): number | undefined {
  if (daemonSetsReadyCondition(node) !== undefined || decision.condition.status !== 'False') return undefined;
  if (!bootstrapping(decision)) return undefined;
  const created = timestampMillis(node.metadata?.creationTimestamp) ?? now.getTime();
  const due = created + WAITING_SHOWN_AFTER_SECONDS * 1000 - now.getTime();
  return Math.max(0, Math.ceil(due / 1000));
}

/** True when the decided condition is to be written on `node` at `now` (see the module comment). */
export function conditionChanges(
  node: Readonly<V1Node>,
  decision: Readonly<NodeGateDecision>,
  now: Date,
): boolean {
  const wanted = decision.condition;
  const current = daemonSetsReadyCondition(node);
  if (current !== undefined) return current.status !== wanted.status || current.reason !== wanted.reason;
  if (wanted.status === 'True') return decision.keys.some((k) => k.action === 'lift');
  if (decision.keys.some((k) => k.timedOut || k.action === 'restore')) return true;
  return secondsUntilWaitingShown(node, decision, now) === 0;
}

/**
 * Since when a node first shown False has waited: its creation when it is bootstrapping behind a
 * gate taint (as `gatedSince` counts it, so the timeout clock does not restart with the write),
 * else now.
 */
function firstFalseSince(node: Readonly<V1Node>, decision: Readonly<NodeGateDecision>, now: Date): Date {
  const created = timestampMillis(node.metadata?.creationTimestamp);
  return bootstrapping(decision) && created !== undefined && created < now.getTime()
    ? new Date(created)
    : now;
}

/**
 * The condition to patch into `node`'s status for `decision` at `now`, or undefined when none is to
 * be written ({@link conditionChanges}). lastHeartbeatTime is now; lastTransitionTime is set only
 * when the status flips (merged by type, the node's own stays otherwise): now, or for a first False
 * on a bootstrapping node its creation.
 */
export function conditionWrite(
  node: Readonly<V1Node>,
  decision: Readonly<NodeGateDecision>,
  now: Date,
): V1NodeCondition | undefined {
  if (!conditionChanges(node, decision, now)) return undefined;
  const wanted = decision.condition;
  const current = daemonSetsReadyCondition(node);
  const condition: V1NodeCondition = { ...wanted, lastHeartbeatTime: now };
  if (current?.status === wanted.status) return condition;
  const first = current === undefined && wanted.status === 'False';
  return { ...condition, lastTransitionTime: first ? firstFalseSince(node, decision, now) : now };
}
