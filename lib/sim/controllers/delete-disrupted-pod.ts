/**
 * The last step both pod-deleting controllers of the simulated cluster share: mark the pod
 * `DisruptionTarget=True` through its status, then delete it — upstream
 * pkg/controller/tainteviction/taint_eviction.go addConditionAndDeletePod and
 * pkg/controller/podgc/gc_controller.go markFailedAndDeletePodWithCondition.
 */
import { isGoneOrReplaced, type SimContext } from '../sim-context.ts';
import { rfc3339 } from '../sim-timing.ts';
import type { KubeObject } from '../storage/store.ts';

/** Why a controller deletes a pod, and how. */
export interface PodDisruption {
  /** Reason of the DisruptionTarget condition, e.g. `DeletionByTaintManager`. */
  readonly reason: string;
  /** Message of the DisruptionTarget condition. */
  readonly message: string;
  /** Also set phase Failed unless the pod already finished (pod GC does, taint eviction does not). */
  readonly markFailed?: boolean;
  /** Grace period of the delete; omitted, the pod's own applies. */
  readonly gracePeriodSeconds?: number;
}

/**
 * Adds the DisruptionTarget condition to the pod with this uid and then deletes it (precondition:
 * the same uid). Returns nothing; a pod already gone or replaced by a namesake is left alone.
 */
export function deleteDisruptedPod(
  ctx: SimContext,
  pod: Readonly<{ uid: string; namespace: string; name: string }>,
  disruption: Readonly<PodDisruption>,
): void {
  const { uid, namespace, name } = pod;
  const now = rfc3339(ctx.now());
  try {
    ctx.store.mutateShared(
      'pods',
      namespace,
      name,
      (obj) => {
        addDisruptionTarget(obj, disruption.reason, disruption.message, now);
        const status = obj.status as { phase?: string };
        if (disruption.markFailed && status.phase !== 'Succeeded' && status.phase !== 'Failed')
          status.phase = 'Failed';
      },
      { subresource: 'status' },
    );
    const grace = disruption.gracePeriodSeconds;
    ctx.store.delete('pods', namespace, name, {
      ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
      preconditions: { uid },
    });
  } catch (error) {
    if (!isGoneOrReplaced(error)) throw error;
  }
}

/** Adds (or refreshes) the `DisruptionTarget=True` condition controllers put before deleting a pod. */
function addDisruptionTarget(pod: KubeObject, reason: string, message: string, now: string): void {
  const status = (pod.status ?? {}) as { conditions?: Record<string, unknown>[] };
  const others = (status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
  const condition = {
    type: 'DisruptionTarget',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
    reason,
    message,
  };
  pod.status = { ...status, conditions: [...others, condition] };
}
