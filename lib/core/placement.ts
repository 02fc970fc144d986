/**
 * Should a DaemonSet run on a node (upstream pkg/controller/daemon/daemon_controller.go
 * NodeShouldRunDaemonPod, predicates and NewPod).
 */
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';
import { nodeMatchesRequiredAffinity } from './node-affinity.ts';
import { daemonPodTolerations, untoleratedTaints } from './tolerations.ts';

/** The placement verdict for one (node, DaemonSet) pair. */
export interface Placement {
  /** A daemon pod should be created on the node when there is none. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay there. */
  shouldContinueRunning: boolean;
}

/**
 * Whether `ds` should run a daemon pod on `node` (`shouldRun`) and whether one already there may
 * keep running (`shouldContinueRunning`), judged on the pod the controller would create — the
 * template spec plus the automatic tolerations (upstream NewPod):
 * - `template.spec.nodeName` naming another node → neither;
 * - required node affinity (nodeSelector and required terms) not matched → neither;
 * - an untolerated NoSchedule or NoExecute taint → not shouldRun, and shouldContinueRunning only
 *   when no untolerated taint is NoExecute;
 * - PreferNoSchedule taints and `spec.unschedulable` are ignored (daemon pods tolerate cordoned
 *   nodes through the automatic unschedulable toleration, and the controller does not look at the
 *   unschedulable flag at all);
 * - the node readiness gate keys `gateKeys` are tolerated as the pod would tolerate them.
 */
export function nodeShouldRunDaemonPod(
  node: Readonly<V1Node>,
  ds: Readonly<DaemonSet>,
  gateKeys: readonly string[] = [],
): Placement {
  const nodeName = node.metadata?.name ?? '';
  const template: Partial<V1PodSpec> = ds.spec?.template.spec ?? {};
  if (template.nodeName && template.nodeName !== nodeName)
    return { shouldRun: false, shouldContinueRunning: false };
  if (!nodeMatchesRequiredAffinity(node, template)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints;
  // Most nodes have no taints: nothing to tolerate, so the tolerations need not be worked out.
  if (!taints || taints.length === 0) return { shouldRun: true, shouldContinueRunning: true };
  const tolerations = daemonPodTolerations(template, gateKeys);
  if (untoleratedTaints(taints, tolerations, ['NoSchedule', 'NoExecute']).length === 0) {
    return { shouldRun: true, shouldContinueRunning: true };
  }
  // Scheduled daemon pods keep running as long as they tolerate every NoExecute taint.
  const evicting = untoleratedTaints(taints, tolerations, ['NoExecute']);
  return { shouldRun: false, shouldContinueRunning: evicting.length === 0 };
}
