/**
 * How a pod of one revision becomes a pod of another without being recreated, when it can
 * (OpenKruise pkg/util/inplaceupdate defaultCalculateInPlaceUpdateSpec, ported as facts): compare
 * the two revisions' pod templates, as ControllerRevisions record them, never the pod's spec —
 * the API server, admission and the controller itself (tolerations, node affinity) change a pod's
 * spec, so the spec would always differ. What may differ:
 *
 * - the `image` of regular containers (kube-apiserver's pod update allows it; the kubelet restarts
 *   just that container), with the template's labels and annotations: one PATCH;
 * - or the `resources` of regular containers, cpu and memory only, as pods/resize takes them;
 * - the template's labels and annotations alone: a PATCH with no container in it.
 *
 * Anything else recreates the pod: another field of a container or of the pod, a container added,
 * removed, renamed or moved, any change to an init container (its image included: init containers
 * do not run again), images and resources together (two writes that could be half done), resources
 * pods/resize would refuse (resize-rules.ts), and a label or annotation a container reads through an
 * env fieldRef (env is fixed when the container starts; Kruise restarts such containers, which only
 * an image change can do here).
 */
import type { V1PodTemplateSpec, V1ResourceRequirements } from '@kubernetes/client-node';
import { resizeRefusal, sameResources } from './resize-rules.ts';
import {
  differingKeys,
  type JsonObject,
  objectList,
  sameJson,
  semanticObject,
  stringMap,
} from './template-json.ts';

/** What a label or annotation map gains or changes (`set`) and loses (`remove`). */
export interface MapChange {
  readonly set: Readonly<Record<string, string>>;
  readonly remove: readonly string[];
}

/** Labels and annotations of the template that change with the revision. */
export interface MetadataChange {
  readonly labels: MapChange;
  readonly annotations: MapChange;
}

/** A PATCH of the pod: these containers' images (none for a metadata-only change), labels, annotations. */
export interface ImagesChange extends MetadataChange {
  readonly type: 'images';
  readonly containers: readonly { readonly name: string; readonly image: string }[];
}

/** A pods/resize of these containers to the new template's resources, then the metadata. */
export interface ResourcesChange extends MetadataChange {
  readonly type: 'resources';
  readonly containers: readonly { readonly name: string; readonly resources: V1ResourceRequirements }[];
}

/** No in-place update: delete the pod and create one of the new revision. */
export interface Recreate {
  readonly type: 'recreate';
  /** What differs, e.g. `spec.containers[agent].env changed`. */
  readonly reason: string;
}

/** How a pod of the old revision moves to the new one. */
export type InPlaceChange = ImagesChange | ResourcesChange | Recreate;

/** Annotations kube-apiserver refuses to add, change or remove on a running pod. */
const IMMUTABLE_ANNOTATION_PREFIXES = ['container.apparmor.security.beta.kubernetes.io/'];

const recreate = (reason: string): Recreate => ({ type: 'recreate', reason });

function mapChange(old: Readonly<Record<string, string>>, next: Readonly<Record<string, string>>): MapChange {
  const set = Object.fromEntries(Object.entries(next).filter(([key, value]) => old[key] !== value));
  return { set, remove: Object.keys(old).filter((key) => !(key in next)) };
}

const changedKeys = (change: MapChange) => [...Object.keys(change.set), ...change.remove];

/** Why the init containers keep the pod from an in-place update; undefined when they are the same. */
function initContainersReason(old: JsonObject[], next: JsonObject[]): string | undefined {
  if (sameJson(old, next)) return undefined;
  const names = (list: JsonObject[]) => list.map((c) => c.name);
  if (!sameJson(names(old), names(next))) return 'init container added, removed or reordered';
  const fields = old.flatMap((c, i) => differingKeys(c, next[i] ?? {}).map((key) => ({ name: c.name, key })));
  const other = fields.find((f) => f.key !== 'image');
  if (other === undefined) return 'init container image changed';
  return `spec.initContainers[${other.name}].${other.key} changed`;
}

/** Why the pod spec apart from its containers keeps the pod from an in-place update. */
function podSpecReason(old: Readonly<JsonObject>, next: Readonly<JsonObject>): string | undefined {
  const { containers: _c, initContainers: oldInits, ...oldRest } = old;
  const { containers: _d, initContainers: nextInits, ...nextRest } = next;
  const field = differingKeys(oldRest, nextRest)[0];
  if (field !== undefined) return `spec.${field} changed`;
  return initContainersReason(objectList(oldInits), objectList(nextInits));
}

/** The changed container fields, `name` → fields; or why containers cannot change in place. */
function containerFields(old: JsonObject[], next: JsonObject[]): Map<string, string[]> | Recreate {
  const names = (list: JsonObject[]) => list.map((c) => String(c.name));
  if (!sameJson(names(old), names(next)))
    return recreate(
      sameJson(names(old).sort(), names(next).sort()) ? 'containers reordered' : 'container added or removed',
    );
  const changed = new Map<string, string[]>();
  old.forEach((container, i) => {
    const other = next[i] ?? {};
    const fields = differingKeys(container, other).filter(
      (key) => key !== 'resources' || !sameResources(container.resources, other.resources),
    );
    if (fields.length > 0) changed.set(String(container.name), fields);
  });
  return changed;
}

/**
 * A container env var that reads `metadata.<kind>['<key>']` of one of the changed keys, in a
 * container that keeps running (one whose image changes restarts and reads the new value).
 */
function envReading(containers: JsonObject[], kind: string, keys: readonly string[]): string | undefined {
  for (const container of containers)
    for (const env of objectList(container.env)) {
      const path = semanticObject(semanticObject(env.valueFrom).fieldRef).fieldPath;
      const key = keys.find((k) => path === `metadata.${kind}['${k}']` || path === `metadata.${kind}`);
      if (key !== undefined)
        return `metadata.${kind}[${key}] changed and spec.containers[${container.name}].env reads it`;
    }
  return undefined;
}

/** The label and annotation changes, or why they need a new pod. */
function metadataChange(
  old: Readonly<JsonObject>,
  next: Readonly<JsonObject>,
  containers: JsonObject[],
): MetadataChange | Recreate {
  const { labels: l, annotations: a, ...oldRest } = old;
  const { labels: m, annotations: b, ...nextRest } = next;
  const field = differingKeys(oldRest, nextRest)[0];
  if (field !== undefined) return recreate(`metadata.${field} changed`);
  const labels = mapChange(stringMap(l), stringMap(m));
  const annotations = mapChange(stringMap(a), stringMap(b));
  const immutable = changedKeys(annotations).find((key) =>
    IMMUTABLE_ANNOTATION_PREFIXES.some((p) => key.startsWith(p)),
  );
  if (immutable !== undefined) return recreate(`metadata.annotations[${immutable}] changed`);
  const reading =
    envReading(containers, 'labels', changedKeys(labels)) ??
    envReading(containers, 'annotations', changedKeys(annotations));
  return reading === undefined ? { labels, annotations } : recreate(reading);
}

/**
 * How a pod of the revision whose template is `oldTemplate` becomes one of `newTemplate` (both as
 * their ControllerRevisions hold them): `images` (the changed images, possibly none, and the label
 * and annotation changes: one PATCH), `resources` (the new resources of the changed containers, for
 * pods/resize, and the label and annotation changes), or `recreate` with the first reason found.
 * Equal templates give `images` with nothing in it: only the pod's revision label moves.
 */
export function inPlaceChange(
  oldTemplate: Readonly<V1PodTemplateSpec>,
  newTemplate: Readonly<V1PodTemplateSpec>,
): InPlaceChange {
  const [old, next] = [semanticObject(oldTemplate), semanticObject(newTemplate)];
  const [oldSpec, nextSpec] = [semanticObject(old.spec), semanticObject(next.spec)];
  const specReason = podSpecReason(oldSpec, nextSpec);
  if (specReason !== undefined) return recreate(specReason);
  const [oldContainers, nextContainers] = [objectList(oldSpec.containers), objectList(nextSpec.containers)];
  const fields = containerFields(oldContainers, nextContainers);
  if (!(fields instanceof Map)) return fields;
  for (const [name, changed] of fields) {
    const other = changed.find((f) => f !== 'image' && f !== 'resources');
    if (other !== undefined) return recreate(`spec.containers[${name}].${other} changed`);
  }
  const withField = (field: string) =>
    [...fields].filter(([, changed]) => changed.includes(field)).map(([n]) => n);
  const [images, resources] = [withField('image'), withField('resources')];
  if (images.length > 0 && resources.length > 0) return recreate('images and resources changed together');
  const running = nextContainers.filter((c) => !images.includes(String(c.name)));
  const metadata = metadataChange(semanticObject(old.metadata), semanticObject(next.metadata), running);
  if ('type' in metadata) return metadata;
  const byName = (name: string) => nextContainers.find((c) => c.name === name) ?? {};
  if (resources.length === 0)
    return {
      type: 'images',
      containers: images.map((name) => ({ name, image: String(byName(name).image) })),
      ...metadata,
    };
  const refusal = resizeRefusal(oldSpec, nextSpec, resources);
  if (refusal !== undefined) return recreate(`resources cannot be resized: ${refusal}`);
  const containers = resources.map((name) => ({
    name,
    resources: (byName(name).resources ?? {}) as V1ResourceRequirements,
  }));
  return { type: 'resources', containers, ...metadata };
}
