/**
 * The gate decision for one node (docs/design.md, 26. Node readiness gates), pure like
 * `nodeShouldRunDaemonPod`: from the node and, for every gating DaemonSet, whether it should run
 * there (its gate key tolerated) and whether it has an available pod there, which gate taints to
 * lift or restore, the marker of BootstrapOnly releases, and the node's condition.
 *
 * Per gate key K (several DaemonSets may gate the same key; K is Continuous if any of them is, and
 * a dry run only if all of them are):
 * - K is satisfied when every DaemonSet gating K that should run on the node has an available pod
 *   there (of any revision) — trivially when none should run there.
 * - Tainted with K and satisfied → lift. In BootstrapOnly, the release is marked on the node (the
 *   marker annotation, with the time) and K is never managed on that node again.
 * - Not tainted with K, not satisfied, Continuous → restore (NoSchedule: running pods stay).
 * - Otherwise nothing: waiting, or satisfied and open, or BootstrapOnly on a node never tainted.
 */
import type { V1Node, V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import { timestampMillis } from '../pod-availability.ts';
import {
  GATE_TAINT_EFFECT,
  isGateTaint,
  type NodeReadinessGate,
  type NodeReadinessMode,
} from './gate-declaration.ts';

/** The node condition everynode keeps on nodes while any gate is in use. */
export const DAEMONSETS_READY_CONDITION = 'everynode.dev/DaemonSetsReady';
/** Annotation on a node: the BootstrapOnly gate keys released there, JSON `{ key: time }`. */
export const GATE_RELEASED_ANNOTATION = 'everynode.dev/node-readiness-released';

/** One gating DaemonSet as the node sees it. */
export interface GatingDaemonSet {
  readonly ds: Readonly<DaemonSet>;
  readonly gate: NodeReadinessGate;
  /** It should run a pod on the node, judged with its gate key tolerated. */
  readonly shouldRun: boolean;
  /** It has an available pod on the node (of any revision). */
  readonly available: boolean;
}

/** What a gate key needs on the node. */
export type GateAction = 'lift' | 'restore' | 'none';

/** The decision for one gate key on the node. */
export interface GateKeyDecision {
  readonly key: string;
  readonly mode: NodeReadinessMode;
  readonly dryRun: boolean;
  readonly tainted: boolean;
  /** `namespace/name` of the gating DaemonSets that should run here and have no available pod. */
  readonly waitingFor: readonly string[];
  /** Released earlier in BootstrapOnly: no longer managed on this node. */
  readonly released: boolean;
  readonly action: GateAction;
  /** Gated longer than the shortest timeout of the DaemonSets it waits for. */
  readonly timedOut: boolean;
  /**
   * No DaemonSet gates the key any more, and the node still carries its taint: lifted, with no
   * marker (`core/node-gates/orphan-gate-keys.ts`). Absent for a key some DaemonSet gates.
   */
  readonly orphaned?: boolean;
}

/** The decision for the node: what to write, and the condition to show. */
export interface NodeGateDecision {
  readonly keys: readonly GateKeyDecision[];
  /** The node's taints after the lifts and restores that are not dry runs; undefined when unchanged. */
  readonly taints?: V1Taint[];
  /** The marker annotation's new value; undefined when unchanged. */
  readonly releasedMarker?: string;
  /** The condition the node should show. */
  readonly condition: Pick<V1NodeCondition, 'type' | 'status' | 'reason' | 'message'>;
}

const nameOf = (ds: Readonly<DaemonSet>) => `${ds.metadata?.namespace ?? ''}/${ds.metadata?.name ?? ''}`;

/** The released marker on `node`: gate key → ISO time; unreadable text counts as none. */
export function releasedGateKeys(node: Readonly<V1Node>): Record<string, string> {
  const text = node.metadata?.annotations?.[GATE_RELEASED_ANNOTATION];
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string'));
  } catch {
    return {};
  }
}

/**
 * Since when the node has been gated: the last transition of its condition to False, else (no
 * condition yet: it is bootstrapping) its creation; undefined when the condition is True.
 */
export function gatedSince(node: Readonly<V1Node>): number | undefined {
  const condition = node.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
  if (condition?.status === 'True') return undefined;
  return timestampMillis(condition?.lastTransitionTime) ?? timestampMillis(node.metadata?.creationTimestamp);
}

function decideKey(
  key: string,
  gating: readonly GatingDaemonSet[],
  node: Readonly<V1Node>,
  released: Readonly<Record<string, string>>,
  now: number,
): GateKeyDecision {
  const mode: NodeReadinessMode = gating.some((g) => g.gate.mode === 'Continuous')
    ? 'Continuous'
    : 'BootstrapOnly';
  const dryRun = gating.every((g) => g.gate.dryRun);
  const tainted = (node.spec?.taints ?? []).some((t) => isGateTaint(t, key));
  const waiting = gating.filter((g) => g.shouldRun && !g.available);
  const waitingFor = waiting.map((g) => nameOf(g.ds)).sort();
  const wasReleased = mode === 'BootstrapOnly' && released[key] !== undefined;
  const since = gatedSince(node);
  const timeouts = waiting.flatMap((g) =>
    g.gate.timeoutSeconds === undefined ? [] : [g.gate.timeoutSeconds],
  );
  const timedOut =
    tainted &&
    !wasReleased &&
    since !== undefined &&
    timeouts.length > 0 &&
    now - since >= Math.min(...timeouts) * 1000;
  let action: GateAction = 'none';
  if (!wasReleased && tainted && waiting.length === 0) action = 'lift';
  else if (!wasReleased && !tainted && waiting.length > 0 && mode === 'Continuous') action = 'restore';
  return { key, mode, dryRun, tainted, waitingFor, released: wasReleased, action, timedOut };
}

function conditionOf(keys: readonly GateKeyDecision[]): NodeGateDecision['condition'] {
  const blocking = keys.filter(
    (k) => !k.released && (k.tainted || k.action === 'restore') && k.waitingFor.length > 0,
  );
  if (blocking.length === 0)
    return {
      type: DAEMONSETS_READY_CONDITION,
      status: 'True',
      reason: 'DaemonSetsReady',
      message: 'every gating DaemonSet that should run here has an available pod',
    };
  const parts = blocking.map((k) => `${k.waitingFor.join(', ')} (${k.key}${k.dryRun ? ', dry run' : ''})`);
  return {
    type: DAEMONSETS_READY_CONDITION,
    status: 'False',
    reason: 'WaitingForDaemonSets',
    message: `waiting for an available pod of ${parts.join('; ')}`,
  };
}

/** The gate decision for `node` given every gating DaemonSet of the cluster, at `now` (epoch ms). */
export function decideNodeGates(
  node: Readonly<V1Node>,
  gating: readonly GatingDaemonSet[],
  now: number,
): NodeGateDecision {
  const released = releasedGateKeys(node);
  const byKey = new Map<string, GatingDaemonSet[]>();
  for (const g of gating) byKey.set(g.gate.taintKey, [...(byKey.get(g.gate.taintKey) ?? []), g]);
  const keys = [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, gates]) => decideKey(key, gates, node, released, now));
  const applied = keys.filter((k) => k.action !== 'none' && !k.dryRun);
  const condition = conditionOf(keys);
  if (applied.length === 0) return { keys, condition };
  let taints = (node.spec?.taints ?? []).map((t) => ({ ...t }));
  const marker = { ...released };
  for (const k of applied) {
    if (k.action === 'lift') {
      taints = taints.filter((t) => !isGateTaint(t, k.key));
      if (k.mode === 'BootstrapOnly') marker[k.key] = new Date(now).toISOString();
    } else taints.push({ key: k.key, effect: GATE_TAINT_EFFECT });
  }
  const markerChanged = Object.keys(marker).length !== Object.keys(released).length;
  return { keys, condition, taints, ...(markerChanged ? { releasedMarker: JSON.stringify(marker) } : {}) };
}
