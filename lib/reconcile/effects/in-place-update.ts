/**
 * Updates one daemon pod to a new revision in place (in-place-update-plan.ts decides the writes):
 * its images by one JSON patch of the pod, or its resources by a JSON patch of pods/resize and
 * then one of the pod for its labels.
 *
 * The revision label moves last, in the same write as the rest of the pod's change (images) or
 * after the resize was accepted (resources): a pod carries the new revision's label only once its
 * spec is the new revision's, so a step stopped between the two writes leaves a pod still labelled
 * with the old revision, which the next step updates again (the resize is idempotent: it sets the
 * same values). The other order would leave a pod counted as updated that runs the old resources.
 * The label says the spec is the new revision's, not that the kubelet applied it: whether the
 * resize took is read from the pod's status (core/in-place/resize-status.ts).
 *
 * Every write carries `test` ops on the pod's uid and revision label as read: a 422 naming no
 * field (kube/errors/patch-not-applied.ts), a 404 or a 409 means the pod is no longer the one read — the
 * outcome is `stale`, and the caller reads it again. A 422 naming fields is the API server refusing
 * the change itself (pods/resize would change the QoS class, an admission plugin refuses the
 * update): the pod is recreated instead.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { Recreate } from '../../core/in-place/in-place-change.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import { isPatchNotApplied } from '../../kube/errors/patch-not-applied.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { EventReason } from '../memory/event-recorder.ts';
import { type InPlacePlan, type InPlaceUpdateRequest, inPlacePlan } from './in-place-update-plan.ts';

export type { InPlaceUpdateRequest } from './in-place-update-plan.ts';

/** The pod took the new revision's images and labels (`updated`), or its resources and labels (`resized`). */
export interface InPlaceDone {
  readonly type: 'updated' | 'resized';
  /** The pod as stored after its last write. */
  readonly pod: V1Pod;
}

/** The pod changed or went since it was read: read it again and decide again. */
export interface InPlaceStale {
  readonly type: 'stale';
}

/**
 * What an in-place update did: done, `recreate` (nothing written, or the API server refused a
 * write: delete the pod and create one of the new revision), or `stale`.
 */
export type InPlaceOutcome = InPlaceDone | Recreate | InPlaceStale;

/** What the update needs: the API, the logs, and the event recorder. */
export type InPlaceDeps = DepsPart<'kube' | 'logger', 'events'>;

/** True when `error` says the pod is not the one the writes were made for. */
function isStale(error: unknown): boolean {
  return isPatchNotApplied(error) || error instanceof NotFoundError || error instanceof ConflictError;
}

/** The event about the pod's update, on its DaemonSet. */
function recordUpdate(
  deps: InPlaceDeps,
  request: Readonly<InPlaceUpdateRequest>,
  plan: Exclude<InPlacePlan, Recreate>,
): void {
  const { ds, pod, newHash } = request;
  const meta = pod.metadata ?? {};
  const where = `pod ${meta.namespace}/${meta.name} on node ${targetNodeName(pod) ?? '(unknown)'}`;
  if (plan.type === 'images') {
    const images = plan.change.containers.map((c) => `${c.name}=${c.image}`).join(', ');
    const what = images === '' ? 'labels only' : `images ${images}`;
    deps.memory.events.normal(
      ds,
      EventReason.UpdatedInPlace,
      `Updated ${where} in place to revision ${newHash} (${what})`,
    );
    return;
  }
  const names = plan.change.containers.map((c) => c.name).join(', ');
  deps.memory.events.normal(
    ds,
    EventReason.Resized,
    `Resized ${where} in place to revision ${newHash} (containers ${names})`,
  );
}

/** Sends the plan's writes: the resize first (for resources), the patch of the pod last. */
async function send(deps: InPlaceDeps, pod: Readonly<V1Pod>, plan: Exclude<InPlacePlan, Recreate>) {
  const kube = deps.ports.kube;
  const [namespace, name] = [pod.metadata?.namespace ?? 'default', pod.metadata?.name ?? ''];
  if (plan.type === 'resources') {
    const resized = await kube.jsonPatchPodResize(namespace, name, plan.resize);
    if (plan.update.length === 0) return resized;
  }
  return kube.jsonPatchPod(namespace, name, plan.update);
}

/**
 * Takes `request.pod` to `request.newRevision` in place: `updated` (images and labels, one patch)
 * or `resized` (a resize accepted, then the labels) with the pod as stored, and a Normal event
 * `UpdatedInPlace` or `Resized` on the DaemonSet; `recreate` with the reason when the change cannot
 * be made in place (nothing written) or the API server refuses it; `stale` when the pod changed
 * or went since it was read. Any other error is thrown, typed.
 */
export async function updateInPlace(
  deps: InPlaceDeps,
  request: Readonly<InPlaceUpdateRequest>,
): Promise<InPlaceOutcome> {
  const plan = inPlacePlan(request);
  if (plan.type === 'recreate') return plan;
  try {
    const pod = await send(deps, request.pod, plan);
    recordUpdate(deps, request, plan);
    return { type: plan.type === 'images' ? 'updated' : 'resized', pod };
  } catch (error) {
    if (isStale(error)) return { type: 'stale' };
    if (!(error instanceof InvalidError)) throw error;
    const meta = request.pod.metadata ?? {};
    deps.ports.logger.info('the API server refuses the in-place update; the pod is to be recreated', {
      pod: `${meta.namespace}/${meta.name}`,
      revision: request.newHash,
      error: error.message,
    });
    return { type: 'recreate', reason: error.message };
  }
}
