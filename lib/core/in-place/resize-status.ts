/**
 * Where a pod's resize stands, as the kubelet reports it (kube 1.33, status manager
 * SetPodResizePendingCondition / SetPodResizeInProgressCondition): a `PodResizePending` condition
 * while the node cannot take the new resources — reason `Infeasible` when they exceed what the node
 * has at all (it never will: the pod must be recreated, where the scheduler can judge), `Deferred`
 * when other pods use what it needs (it may, once they go) — and a `PodResizeInProgress` condition
 * while the runtime applies them (reason `Error` when an attempt failed; the kubelet retries). Only
 * a condition whose status is True holds. With neither, the resize is done once every container's
 * status reports the cpu and memory its spec asks for (compared by value: the kubelet reports
 * cpu in millicores and a memory limit in bytes) and the kubelet observed the pod's generation,
 * when the pod has one (status.observedGeneration, PodObservedGenerationTracking).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { RESIZABLE_RESOURCES, sameQuantity } from './resize-rules.ts';

/** A resize the node can never take: recreate the pod. */
export interface ResizeInfeasible {
  readonly type: 'infeasible';
  readonly message: string;
}

/** A resize waiting for room on the node. */
export interface ResizeDeferred {
  readonly type: 'deferred';
  readonly message: string;
}

/** A resize being applied, or not yet seen by the kubelet. */
export interface ResizeInProgress {
  readonly type: 'in-progress';
  /** What is awaited. */
  readonly message: string;
}

/** The resources the spec asks for are the ones applied. */
export interface ResizeDone {
  readonly type: 'done';
}

/** Where a pod's resize stands. */
export type ResizeStatus = ResizeInfeasible | ResizeDeferred | ResizeInProgress | ResizeDone;

/** The condition `type` of the pod, when it holds (status True). */
function holding(pod: Readonly<V1Pod>, type: string) {
  return pod.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Why the container `name`'s applied cpu and memory are not yet its spec's; undefined when they are. */
function containerLag(pod: Readonly<V1Pod>, name: string): string | undefined {
  const wanted = pod.spec?.containers.find((c) => c.name === name)?.resources ?? {};
  const status = pod.status?.containerStatuses?.find((s) => s.name === name);
  if (status?.resources === undefined) return `container ${name} reports no resources yet`;
  for (const kind of ['requests', 'limits'] as const)
    for (const resource of RESIZABLE_RESOURCES) {
      const want = wanted[kind]?.[resource];
      const have = status.resources[kind]?.[resource];
      if (want !== undefined && !sameQuantity(want, have))
        return `container ${name} runs with ${kind}.${resource} ${have ?? 'unset'}, not ${want}`;
    }
  return undefined;
}

/**
 * Where the resize of `pod` stands: `infeasible` or `deferred` (with the kubelet's message) while a
 * PodResizePending condition of that reason holds, `in-progress` while PodResizeInProgress holds,
 * the kubelet has not observed the pod's generation, or a container (of `containers`, by default
 * every regular container) does not report running with the cpu and memory its spec asks for; else
 * `done`. A pod without resize conditions whose containers run as their spec says is `done`: a
 * pod that was never resized too.
 */
export function resizeStatus(pod: Readonly<V1Pod>, containers?: readonly string[]): ResizeStatus {
  const pending = holding(pod, 'PodResizePending');
  if (pending?.reason === 'Infeasible') return { type: 'infeasible', message: pending.message ?? '' };
  if (pending !== undefined) return { type: 'deferred', message: pending.message ?? '' };
  const inProgress = holding(pod, 'PodResizeInProgress');
  if (inProgress !== undefined) {
    const why = inProgress.message ? `: ${inProgress.message}` : '';
    return { type: 'in-progress', message: `the kubelet is applying the resize${why}` };
  }
  const generation = pod.metadata?.generation;
  const observed = pod.status?.observedGeneration;
  if (generation !== undefined && observed !== undefined && observed < generation)
    return { type: 'in-progress', message: `the kubelet has not observed generation ${generation} yet` };
  const names = containers ?? (pod.spec?.containers ?? []).map((c) => c.name);
  for (const name of names) {
    const lag = containerLag(pod, name);
    if (lag !== undefined) return { type: 'in-progress', message: lag };
  }
  return { type: 'done' };
}
