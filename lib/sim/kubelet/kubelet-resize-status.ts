/**
 * The resize state of a pod run as the kubelet reports it (kube 1.33): PodResizePending
 * (reason Infeasible or Deferred, the admission message) and PodResizeInProgress conditions —
 * both True while they hold, gone once they do not, none for a pod that ended (status manager
 * SetPodResizePendingCondition / SetPodResizeInProgressCondition, determinePodResizeStatus) —
 * and each container's `resources` (what is applied, as the runtime reports it back) and
 * `allocatedResources` (the allocated requests).
 */
import { formatBinary, formatMilli, milliValue, wholeValue } from '../schema/quantity.ts';
import { rfc3339 } from '../sim-timing.ts';
import { isTerminalPhase, type PodRun } from './kubelet-pod-run.ts';
import type { ContainerResources } from './kubelet-resize.ts';

/** The resize condition types, kubelet-owned. */
export const resizeConditionTypes = ['PodResizePending', 'PodResizeInProgress'];

/** The resize conditions of `run`, in the order the kubelet writes them. */
export function resizeConditionsFor(run: Readonly<PodRun>): Record<string, unknown>[] {
  const r = run.resources;
  if (!r || isTerminalPhase(run.phase)) return [];
  const out: Record<string, unknown>[] = [];
  if (r.pending) {
    const { reason, message, since, probedAt } = r.pending;
    out.push({
      type: 'PodResizePending',
      status: 'True',
      lastProbeTime: rfc3339(probedAt),
      lastTransitionTime: rfc3339(since),
      reason,
      message,
    });
  }
  if (r.inProgress) {
    const at = rfc3339(r.inProgress.since);
    out.push({ type: 'PodResizeInProgress', status: 'True', lastProbeTime: at, lastTransitionTime: at });
  }
  return out;
}

/**
 * A container's applied resources as convertContainerStatusResources reports them: cpu as the
 * runtime gives it back (millicores), the memory limit in bytes, the memory request as allocated.
 */
function reported(r: Readonly<ContainerResources>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.limits && Object.keys(r.limits).length > 0) {
    const limits: Record<string, string> = { ...r.limits };
    if (limits.cpu !== undefined) limits.cpu = formatMilli(milliValue(limits.cpu));
    if (limits.memory !== undefined) limits.memory = formatBinary(wholeValue(limits.memory));
    out.limits = limits;
  }
  if (r.requests && Object.keys(r.requests).length > 0) {
    const requests: Record<string, string> = { ...r.requests };
    if (requests.cpu !== undefined) requests.cpu = formatMilli(milliValue(requests.cpu));
    out.requests = requests;
  }
  return out;
}

/** `resources` and `allocatedResources` of the container `name`'s status (none before admission). */
export function containerResourcesStatus(run: Readonly<PodRun>, name: string): Record<string, unknown> {
  const allocated = run.resources?.allocated[name];
  const actuated = run.resources?.actuated[name];
  if (!allocated || !actuated) return {};
  const requests = allocated.requests ?? {};
  return {
    ...(Object.keys(requests).length > 0 ? { allocatedResources: { ...requests } } : {}),
    resources: reported(actuated),
  };
}
