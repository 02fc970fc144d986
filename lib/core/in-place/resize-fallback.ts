/**
 * When an in-place resize gives way to a recreate (docs/design.md, 31. In-place updates). The
 * kubelet reports a resize it cannot take as a `PodResizePending` condition (resize-status.ts):
 * `Infeasible` — the pod's requests exceed what the node has at all, so it never will: the pod is
 * recreated at once, and the scheduler judges its replacement; `Deferred` — the node's other pods
 * leave too little, which may pass: the pod is recreated once the condition has held for the
 * deadline ({@link RESIZE_DEFERRED_DEADLINE_SECONDS} by default), as the Vertical Pod Autoscaler's
 * InPlaceOrRecreate mode does (updater `DeferredResizeUpdateTimeout`, 5 minutes; Infeasible evicts
 * at once).
 *
 * Only a resize of ours that is still pending counts: the pod carries the in-place state of a
 * resize (in-place-state.ts) for the revision its label names — the label moves with the resize,
 * before the kubelet applied it, so the label alone says nothing of the resources. The time is the
 * condition's `lastTransitionTime`, which the kubelet keeps while the reason stays the same
 * (status manager updatedPodResizeCondition), so a restarted or replayed step decides the same from
 * the API server's state alone.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL } from '../daemon-set.ts';
import { inPlaceStateOf } from './in-place-state.ts';
import { resizeStatus } from './resize-status.ts';

/**
 * How long a resize may stay Deferred before its pod is recreated, by default: 5 minutes, the
 * Vertical Pod Autoscaler's wait for the same fallback. Long enough for a pod finishing elsewhere
 * on the node to free its room; short enough that a rollout is not held for long by a node that
 * stays full.
 */
export const RESIZE_DEFERRED_DEADLINE_SECONDS = 300;

/** Why a resize gives way to a recreate. */
export type ResizeFallbackReason = 'Infeasible' | 'Deferred';

/** Recreate the pod: its resize cannot be taken (Infeasible) or waited too long (Deferred). */
export interface ResizeFallbackRecreate {
  readonly type: 'recreate';
  readonly reason: ResizeFallbackReason;
  /** The kubelet's message, with how long a Deferred resize waited. */
  readonly message: string;
}

/** A Deferred resize within its deadline: look again after `afterSeconds`. */
export interface ResizeFallbackWait {
  readonly type: 'wait';
  readonly afterSeconds: number;
}

/** What to do about a pod's resize: recreate it, wait, or nothing (none pending, or going well). */
export type ResizeFallback = ResizeFallbackRecreate | ResizeFallbackWait | undefined;

/** When the PodResizePending condition holding on `pod` took its reason, in ms; undefined when unknown. */
function pendingSince(pod: Readonly<V1Pod>): number | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodResizePending' && c.status === 'True');
  const at = condition?.lastTransitionTime ?? condition?.lastProbeTime;
  if (at === undefined) return undefined;
  const ms = new Date(at).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * What to do about the resize of `pod` at `now`, Deferred ones given `deadlineSeconds`: `recreate`
 * when the pod has a resize of ours pending for the revision its label names (not being deleted)
 * and the kubelet reports it Infeasible, or Deferred since at least the deadline (or since when it
 * does not say: the kubelet always does); `wait` with the time left while Deferred for less;
 * undefined otherwise.
 */
export function resizeFallback(
  pod: Readonly<V1Pod>,
  now: Date,
  deadlineSeconds: number = RESIZE_DEFERRED_DEADLINE_SECONDS,
): ResizeFallback {
  if (pod.metadata?.deletionTimestamp) return undefined;
  const state = inPlaceStateOf(pod);
  if (state?.resize !== true || state.revision !== pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL])
    return undefined;
  const status = resizeStatus(pod);
  if (status.type === 'infeasible')
    return { type: 'recreate', reason: 'Infeasible', message: status.message };
  if (status.type !== 'deferred') return undefined;
  const since = pendingSince(pod);
  const waited = since === undefined ? Number.POSITIVE_INFINITY : (now.getTime() - since) / 1000;
  if (waited < deadlineSeconds) return { type: 'wait', afterSeconds: deadlineSeconds - waited };
  const how = since === undefined ? 'for an unknown time' : `for ${Math.round(waited)}s`;
  return {
    type: 'recreate',
    reason: 'Deferred',
    message: `${status.message} (deferred ${how}, the limit is ${deadlineSeconds}s)`,
  };
}
