/**
 * kube-scheduler's NodeResourcesFit filter (pkg/scheduler/framework/plugins/noderesources/fit.go
 * fitsRequest), as a pure function: a pod fits a node when one more pod stays within the node's
 * allocatable `pods` and each resource it requests (cpu, memory, ephemeral storage; only those it
 * requests, more than zero) fits in the node's allocatable less what the pods bound there request.
 * The pod's requests are PodRequests of lib/sim/pod-requests.ts; the defaults of 100m cpu and
 * 200Mi memory for containers without requests are for scoring only, never for this filter.
 */
import type { NodeAllocatable, ResourceAmounts } from '../pod-requests.ts';

/** What the pods bound to a node request, and how many they are. */
export interface NodeRequested extends ResourceAmounts {
  readonly pods: number;
}

/** Upstream InsufficientResource reasons, in the order fitsRequest checks them. */
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const REASON_INSUFFICIENT_CPU = 'Insufficient cpu';
export const REASON_INSUFFICIENT_MEMORY = 'Insufficient memory';
export const REASON_INSUFFICIENT_EPHEMERAL_STORAGE = 'Insufficient ephemeral-storage';

/** The reasons the pod does not fit (all of them, as upstream keeps them), empty when it fits. */
export function insufficientResources(
  request: Readonly<ResourceAmounts>,
  requested: Readonly<NodeRequested>,
  allocatable: Readonly<NodeAllocatable>,
): string[] {
  const reasons: string[] = [];
  if (requested.pods + 1 > allocatable.pods) reasons.push(REASON_TOO_MANY_PODS);
  if (request.cpu > 0 && request.cpu > allocatable.cpu - requested.cpu) reasons.push(REASON_INSUFFICIENT_CPU);
  if (request.memory > 0 && request.memory > allocatable.memory - requested.memory)
    reasons.push(REASON_INSUFFICIENT_MEMORY);
  if (
    request.ephemeralStorage > 0 &&
    request.ephemeralStorage > allocatable.ephemeralStorage - requested.ephemeralStorage
  )
    reasons.push(REASON_INSUFFICIENT_EPHEMERAL_STORAGE);
  return reasons;
}
