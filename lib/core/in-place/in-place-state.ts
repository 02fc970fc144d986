/**
 * What an in-place update of a pod leaves pending, and when it has settled (docs/design.md, 31.
 * In-place updates). The patch that changes a pod's images or moves its revision label also writes
 * the annotation `everynode.dev/in-place-update`: the revision it is for and, per container whose
 * image changes, the container ID it ran (for a resize, `resize: true`). Until the update settles
 * the pod counts as not ready — for the rolling update's budget, the status counts and the safe
 * rollout's health rules alike — because between the patch and the kubelet's restart the pod's Ready
 * condition still says True for a container about to be replaced:
 * - images: every named container runs under another container ID than the recorded one, and is
 *   ready (the kubelet restarted it with the new image);
 * - resize: the kubelet reports it applied (`resizeStatus` done).
 * A pod whose revision label has moved on from the annotation's revision is not pending: a later
 * update or a recreate owns it.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL } from '../daemon-set.ts';
import { resizeStatus } from './resize-status.ts';

/** The annotation an in-place update writes with its patch. */
export const IN_PLACE_STATE_ANNOTATION = 'everynode.dev/in-place-update';

/** The annotation's value. */
export interface InPlaceState {
  /** The revision hash the update takes the pod to. */
  readonly revision: string;
  /** Container name → the container ID it ran before the update (images). */
  readonly containers?: Readonly<Record<string, string>>;
  /** The update resizes the pod. */
  readonly resize?: true;
}

/** The state for an images update of `names` in `pod` to `revision`: their current container IDs. */
export function imagesState(pod: Readonly<V1Pod>, names: readonly string[], revision: string): InPlaceState {
  const statuses = pod.status?.containerStatuses ?? [];
  const containers = Object.fromEntries(
    names.map((name) => [name, statuses.find((s) => s.name === name)?.containerID ?? '']),
  );
  return { revision, containers };
}

/** The state of a resize to `revision`. */
export function resizeState(revision: string): InPlaceState {
  return { revision, resize: true };
}

/** The pod's in-place state, if it carries a well-formed one. */
export function inPlaceStateOf(pod: Readonly<V1Pod>): InPlaceState | undefined {
  const text = pod.metadata?.annotations?.[IN_PLACE_STATE_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<InPlaceState> | null;
    if (value === null || typeof value !== 'object' || typeof value.revision !== 'string') return undefined;
    const containers =
      value.containers !== null && typeof value.containers === 'object' ? value.containers : undefined;
    return {
      revision: value.revision,
      ...(containers ? { containers } : {}),
      ...(value.resize === true ? { resize: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Why the pod's in-place update has not settled yet, or undefined when none is pending (no state, a
 * state of another revision than the pod's label, or every part done).
 */
export function pendingInPlaceUpdate(pod: Readonly<V1Pod>): string | undefined {
  const state = inPlaceStateOf(pod);
  if (state === undefined || state.revision !== pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL])
    return undefined;
  const statuses = pod.status?.containerStatuses ?? [];
  for (const [name, before] of Object.entries(state.containers ?? {})) {
    const status = statuses.find((s) => s.name === name);
    if (status === undefined || status.containerID === undefined || status.containerID === before)
      return `container ${name} has not restarted with its new image yet`;
    if (status.ready !== true) return `container ${name} is not ready after its restart`;
  }
  if (state.resize === true) {
    const resize = resizeStatus(pod);
    if (resize.type !== 'done') return `resize ${resize.type}: ${resize.message}`;
  }
  return undefined;
}
