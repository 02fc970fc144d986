/**
 * The taints kube-controller-manager's node lifecycle controller keeps on a node, from the node's
 * conditions and `spec.unschedulable` — pure, so the controller only writes what this returns.
 */
import type { V1Node, V1Taint } from '@kubernetes/client-node';

/** A taint as JSON (timeAdded as an RFC 3339 string). */
export interface TaintJson {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** Taint keys the controller owns (upstream pkg/controller/nodelifecycle, v1 well-known taints). */
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

/**
 * Condition → NoSchedule taint (upstream nodeConditionToTaintKeyStatusMap): Ready False/Unknown,
 * and the pressure / network conditions when True.
 */
const noScheduleByCondition: readonly { type: string; status: string; key: string }[] = [
  { type: 'Ready', status: 'False', key: NOT_READY_TAINT },
  { type: 'Ready', status: 'Unknown', key: UNREACHABLE_TAINT },
  { type: 'MemoryPressure', status: 'True', key: 'node.kubernetes.io/memory-pressure' },
  { type: 'DiskPressure', status: 'True', key: 'node.kubernetes.io/disk-pressure' },
  { type: 'NetworkUnavailable', status: 'True', key: 'node.kubernetes.io/network-unavailable' },
  { type: 'PIDPressure', status: 'True', key: 'node.kubernetes.io/pid-pressure' },
];

const managed = new Set([
  ...noScheduleByCondition.map((c) => `${c.key}:NoSchedule`),
  `${UNSCHEDULABLE_TAINT}:NoSchedule`,
  `${NOT_READY_TAINT}:NoExecute`,
  `${UNREACHABLE_TAINT}:NoExecute`,
]);

/** The node's Ready condition status: 'True', 'False', 'Unknown', or undefined when not reported. */
export function nodeReadyStatus(node: Readonly<V1Node>): string | undefined {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** The controller-owned taints `node` should carry, as `key:effect` strings. */
export function desiredLifecycleTaints(node: Readonly<V1Node>): Set<string> {
  const desired = new Set<string>();
  const conditions = node.status?.conditions ?? [];
  for (const rule of noScheduleByCondition) {
    if (conditions.some((c) => c.type === rule.type && c.status === rule.status))
      desired.add(`${rule.key}:NoSchedule`);
  }
  // doNoScheduleTaintingPass: a cordoned node carries the unschedulable taint.
  if (node.spec?.unschedulable) desired.add(`${UNSCHEDULABLE_TAINT}:NoSchedule`);
  // doNoExecuteTaintingPass: not-ready for Ready=False, unreachable for Ready=Unknown.
  const ready = nodeReadyStatus(node);
  if (ready === 'False') desired.add(`${NOT_READY_TAINT}:NoExecute`);
  if (ready === 'Unknown') desired.add(`${UNREACHABLE_TAINT}:NoExecute`);
  return desired;
}

/**
 * The node's new `spec.taints` when the controller must change them, else undefined: controller
 * taints no longer warranted are removed, missing ones appended with `timeAdded = now` (upstream
 * controller.SwapNodeControllerTaint stamps every taint it adds); all other taints are kept in order.
 */
export function lifecycleTaints(node: Readonly<V1Node>, now: string): TaintJson[] | undefined {
  const desired = desiredLifecycleTaints(node);
  const current = (node.spec?.taints ?? []) as readonly Readonly<V1Taint>[];
  const id = (t: Readonly<V1Taint>): string => `${t.key}:${t.effect}`;
  const kept = current.filter((t) => !managed.has(id(t)) || desired.has(id(t)));
  const present = new Set(kept.map(id));
  const added = [...desired].filter((d) => !present.has(d));
  if (added.length === 0 && kept.length === current.length) return undefined;
  const addedTaints = added.map((d): TaintJson => {
    const [key = '', effect = ''] = d.split(/:(?=[^:]*$)/);
    return { key, effect, timeAdded: now };
  });
  return [...(kept as unknown as TaintJson[]), ...addedTaints];
}
