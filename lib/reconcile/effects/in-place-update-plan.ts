/**
 * The writes of one pod's in-place update, decided before any is sent (pure): the change between
 * the two revisions' templates (core/in-place/in-place-change.ts) and its JSON patches
 * (core/in-place/in-place-patch.ts), or why the pod must be recreated instead.
 */
import type { V1ControllerRevision, V1Node, V1Pod } from '@kubernetes/client-node';
import { revisionHashOf } from '../../core/controller-revision.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
  TEMPLATE_GENERATION_ANNOTATION,
} from '../../core/daemon-set.ts';
import type { ImagesChange, Recreate, ResourcesChange } from '../../core/in-place/in-place-change.ts';
import {
  inPlaceResizePatch,
  inPlaceUpdatePatch,
  type JsonPatchOperation,
} from '../../core/in-place/in-place-patch.ts';
import { resizeAlone, sizedChangeOf } from '../../core/in-place/sized-in-place-change.ts';
import { templateOfRevision } from '../../core/safe-rollout/revert.ts';

/** One pod to take from the revision it runs to another, in place. */
export interface InPlaceUpdateRequest {
  readonly ds: Readonly<DaemonSet>;
  /** The pod as last read: its uid and revision label guard every write. */
  readonly pod: Readonly<V1Pod>;
  /** The revision the pod runs (its `controller-revision-hash`). */
  readonly oldRevision: Readonly<V1ControllerRevision>;
  /** The revision it is to run. */
  readonly newRevision: Readonly<V1ControllerRevision>;
  /** The revision label the pod takes: the new revision's hash. */
  readonly newHash: string;
  /** The pod's node, as listed: the size the revisions' node-sizing rules give the pod there. */
  readonly node?: Readonly<V1Node> | undefined;
}

/** A change of images (possibly none: labels only), sent as one patch of the pod. */
export interface ImagesPlan {
  readonly type: 'images';
  readonly change: ImagesChange;
  readonly update: JsonPatchOperation[];
}

/** A change of resources: the resize first, then the patch of the pod that moves its labels. */
export interface ResourcesPlan {
  readonly type: 'resources';
  readonly change: ResourcesChange;
  readonly resize: JsonPatchOperation[];
  readonly update: JsonPatchOperation[];
}

/** What to send, or why the pod must be recreated. */
export type InPlacePlan = ImagesPlan | ResourcesPlan | Recreate;

const recreate = (reason: string): Recreate => ({ type: 'recreate', reason });

/** A JSON pointer token (RFC 6901). */
const token = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The `test` ops of the resize: the pod's uid and revision label as read. pods/resize applies a
 * JSON patch to the whole pod before it keeps only the resources, so a pod recreated under the
 * same name, or moved on by another step, fails them as it fails the update patch's.
 */
function resizeGuards(pod: Readonly<V1Pod>): JsonPatchOperation[] {
  const hash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const uid = pod.metadata?.uid;
  return [
    ...(uid === undefined ? [] : [{ op: 'test', path: '/metadata/uid', value: uid } as const]),
    ...(hash === undefined
      ? []
      : [
          {
            op: 'test',
            path: `/metadata/labels/${token(CONTROLLER_REVISION_HASH_LABEL)}`,
            value: hash,
          } as const,
        ]),
  ];
}

/** The templates of both revisions, or why there is none to compare. */
function templates(request: Readonly<InPlaceUpdateRequest>) {
  const { pod, oldRevision, newRevision } = request;
  const [old, next] = [templateOfRevision(oldRevision), templateOfRevision(newRevision)];
  if (old === undefined || next === undefined) {
    const name = (old === undefined ? oldRevision : newRevision).metadata?.name;
    return recreate(`revision ${name} records no pod template`);
  }
  const label = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const from = revisionHashOf(oldRevision);
  if (label !== undefined && label !== from)
    return recreate(`the pod is of revision ${label}, not of revision ${from} the update starts from`);
  return { old, next };
}

/**
 * How `request.pod` moves to the new revision in place: `images` (one JSON patch of the pod),
 * `resources` (a JSON patch of pods/resize, then one of the pod), both carrying `test` ops on the
 * pod's uid and revision label as read; or `recreate` with why not — the templates' change needs it
 * (in-place-change.ts), a revision records no template, the pod is not of the old revision, or it
 * lacks a container the change names.
 */
export function inPlacePlan(request: Readonly<InPlaceUpdateRequest>): InPlacePlan {
  const { ds, pod, newHash } = request;
  const both = templates(request);
  if ('type' in both) return both;
  const change = sizedChangeOf(request, both.old, both.next);
  if (change.type === 'recreate') return change;
  const generation = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  const update = inPlaceUpdatePatch(pod, change, newHash, generation);
  const lacking = recreate('the pod lacks a container the new revision changes');
  if (update === undefined) return lacking;
  if (change.type === 'images') return { type: 'images', change, update };
  const resize = inPlaceResizePatch(pod, change);
  if (resize === undefined) return lacking;
  // Only the node changed and the pod already carries this resize's state: the resize is all.
  const labels = resizeAlone(pod, change, newHash) ? [] : update;
  return { type: 'resources', change, resize: [...resizeGuards(pod), ...resize], update: labels };
}
