/**
 * The writes of an in-place update, as JSON patches (RFC 6902, `application/json-patch+json`).
 *
 * A JSON patch addresses a container by its index and checks it by name (`test`), so it changes
 * exactly the container meant or nothing: a strategic merge patch keyed by name would add a
 * container the pod lacks (which the API server then refuses for another reason), and a merge
 * patch replaces the whole list. `test` ops on the pod's uid and on its current revision label make
 * the write a compare-and-swap on the pod as read: a pod recreated under the same deterministic
 * name, or moved on by another step, fails the test (422) instead of being patched blindly.
 * Labels and annotations are set one key at a time, so the ones the controller or others added
 * (the node and DaemonSet uid labels, the failure backoff annotation) stay.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { NODE_LABEL } from '../daemon-pod.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  DAEMONSET_UID_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
} from '../daemon-set.ts';
import type { ImagesChange, MapChange, ResourcesChange } from './in-place-change.ts';
import { IN_PLACE_STATE_ANNOTATION, imagesState, resizeState } from './in-place-state.ts';
import { RESIZABLE_RESOURCES } from './resize-rules.ts';

/** One operation of a JSON patch. */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** Labels only the controller sets: a template that had one does not take it off the pod. */
const CONTROLLER_LABELS = [
  CONTROLLER_REVISION_HASH_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
  DAEMONSET_UID_LABEL,
  NODE_LABEL,
];

/** A JSON pointer token (RFC 6901): `~` and `/` escaped. */
const token = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The operations taking the pod's map at `path` (`/metadata/labels`) through `change`. */
function mapOperations(
  current: Readonly<Record<string, string>> | undefined,
  path: string,
  change: MapChange,
  keep: readonly string[] = [],
): JsonPatchOperation[] {
  if (current === undefined)
    return Object.keys(change.set).length === 0 ? [] : [{ op: 'add', path, value: { ...change.set } }];
  const removed = change.remove.filter((key) => key in current && !keep.includes(key));
  return [
    ...removed.map((key): JsonPatchOperation => ({ op: 'remove', path: `${path}/${token(key)}` })),
    ...Object.entries(change.set).map(
      ([key, value]): JsonPatchOperation => ({ op: 'add', path: `${path}/${token(key)}`, value }),
    ),
  ];
}

/** The guard ops: the pod's uid, and its revision label as read (when it has one). */
function guards(pod: Readonly<V1Pod>): JsonPatchOperation[] {
  const hash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const label = `/metadata/labels/${token(CONTROLLER_REVISION_HASH_LABEL)}`;
  return [
    ...(pod.metadata?.uid === undefined
      ? []
      : [{ op: 'test', path: '/metadata/uid', value: pod.metadata.uid } as const]),
    ...(hash === undefined ? [] : [{ op: 'test', path: label, value: hash } as const]),
  ];
}

/** The index of each named container in the pod, or undefined when the pod lacks one. */
function indexes(pod: Readonly<V1Pod>, names: readonly string[]): number[] | undefined {
  const found = names.map((name) => pod.spec?.containers.findIndex((c) => c.name === name) ?? -1);
  return found.some((i) => i < 0) ? undefined : found;
}

/**
 * The JSON patch of the pod (PATCH pods/NAME) that takes it to the new revision: for an `images`
 * change the images (`test` of each container's name, `replace` of its image), and for both kinds
 * the template's label and annotation changes, the revision labels (`controller-revision-hash`
 * set to `revisionHash`, and `pod-template-generation` when `templateGeneration` is given) and the
 * update's pending state (`in-place-state.ts`: containers to restart, or the resize), guarded
 * by the pod's uid and current revision label. A `resources` change sends it after its resize, so
 * the revision label moves only once the resources did. Undefined when the pod lacks a container of
 * the change: recreate it.
 */
export function inPlaceUpdatePatch(
  pod: Readonly<V1Pod>,
  change: ImagesChange | ResourcesChange,
  revisionHash: string,
  templateGeneration?: string,
): JsonPatchOperation[] | undefined {
  const images = change.type === 'images' ? change.containers : [];
  const at = indexes(
    pod,
    images.map((c) => c.name),
  );
  if (at === undefined) return undefined;
  const revision: Record<string, string> = { [CONTROLLER_REVISION_HASH_LABEL]: revisionHash };
  if (templateGeneration !== undefined) revision[POD_TEMPLATE_GENERATION_LABEL] = templateGeneration;
  const labels = { set: { ...change.labels.set, ...revision }, remove: change.labels.remove };
  // What the update leaves pending, so the pod counts as not ready until it settles (in-place-state.ts).
  const state =
    change.type === 'resources'
      ? resizeState(revisionHash)
      : images.length > 0
        ? imagesState(
            pod,
            images.map((c) => c.name),
            revisionHash,
          )
        : undefined;
  const annotations = {
    set: {
      ...change.annotations.set,
      ...(state ? { [IN_PLACE_STATE_ANNOTATION]: JSON.stringify(state) } : {}),
    },
    remove: change.annotations.remove,
  };
  return [
    ...guards(pod),
    ...images.flatMap(({ name, image }, i): JsonPatchOperation[] => [
      { op: 'test', path: `/spec/containers/${at[i]}/name`, value: name },
      { op: 'replace', path: `/spec/containers/${at[i]}/image`, value: image },
    ]),
    ...mapOperations(pod.metadata?.labels, '/metadata/labels', labels, CONTROLLER_LABELS),
    ...mapOperations(pod.metadata?.annotations, '/metadata/annotations', annotations),
  ];
}

/**
 * The JSON patch of pods/NAME/resize: for each container of the change, a `test` of its name and an
 * `add` of each cpu and memory request and limit the new template names (a request it leaves out
 * being its limit, as at creation), over the pod's own
 * resources, so requests or limits an admission plugin (LimitRanger) added stay and no resource is
 * removed (pods/resize refuses that). Undefined when the pod lacks a container of the change.
 */
export function inPlaceResizePatch(
  pod: Readonly<V1Pod>,
  change: ResourcesChange,
): JsonPatchOperation[] | undefined {
  const at = indexes(
    pod,
    change.containers.map((c) => c.name),
  );
  if (at === undefined) return undefined;
  return change.containers.flatMap(({ name, resources }, i): JsonPatchOperation[] => {
    const base = `/spec/containers/${at[i]}/resources`;
    const current = pod.spec?.containers[at[i] ?? 0]?.resources;
    const ops: JsonPatchOperation[] = [{ op: 'test', path: `/spec/containers/${at[i]}/name`, value: name }];
    if (current === undefined) ops.push({ op: 'add', path: base, value: {} });
    // A request the template leaves out is its limit, as the API server defaults it at creation.
    const lists = {
      limits: resources.limits ?? {},
      requests: { ...resources.limits, ...resources.requests },
    };
    for (const kind of ['requests', 'limits'] as const) {
      const wanted = Object.entries(lists[kind]).filter(([r]) => RESIZABLE_RESOURCES.includes(r));
      if (wanted.length === 0) continue;
      if (current?.[kind] === undefined) ops.push({ op: 'add', path: `${base}/${kind}`, value: {} });
      for (const [resource, quantity] of wanted)
        ops.push({ op: 'add', path: `${base}/${kind}/${resource}`, value: String(quantity) });
    }
    return ops;
  });
}
