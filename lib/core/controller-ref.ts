/**
 * ControllerRef helpers: which object controls another, and the reference a DaemonSet puts on the
 * objects it creates (upstream apimachinery metav1.GetControllerOf / metav1.NewControllerRef).
 */
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';

/** Anything with object metadata: pods, ControllerRevisions, DaemonSets. */
export interface WithMetadata {
  readonly metadata?: Readonly<V1ObjectMeta>;
}

/**
 * The owner reference marked `controller: true` on `obj`, or undefined when nothing controls it
 * (upstream metav1.GetControllerOf; at most one such reference is valid, the first one wins).
 */
export function controllerOf(obj: Readonly<WithMetadata>): V1OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/**
 * True when `obj`'s controller reference names `owner` by uid (upstream compares uids only, so a
 * recreated DaemonSet with the same name does not control its predecessor's pods).
 */
export function isControlledBy(
  obj: Readonly<WithMetadata>,
  owner: Readonly<{ metadata?: Readonly<{ uid?: string }> }>,
): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && uid !== '' && controllerOf(obj)?.uid === uid;
}

/**
 * The controller reference `ds` puts on the pods and ControllerRevisions it creates:
 * `controller` and `blockOwnerDeletion` true, apiVersion/kind of the DaemonSet itself (so an
 * everynode.dev/v1 DaemonSet owns its pods as such), defaulting to apps/v1 DaemonSet
 * (upstream metav1.NewControllerRef(ds, controllerKind)).
 */
export function controllerRefFor(ds: Readonly<DaemonSet>): V1OwnerReference {
  return {
    apiVersion: ds.apiVersion ?? 'apps/v1',
    kind: ds.kind ?? 'DaemonSet',
    name: ds.metadata?.name ?? '',
    uid: ds.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
