/**
 * Node sizing as part of a DaemonSet's revision: a change of the rules is a new revision, as a
 * template change is, and a revision restores the rules it was made with.
 *
 * The revision data (a strategic merge patch that restores the DaemonSet) carries the rules where
 * the DaemonSet holds them: `spec.nodeSizing` on everynode.dev/v1, the `everynode.dev/node-sizing`
 * annotation under `metadata.annotations` on apps/v1, so `kubectl rollout undo` (which applies the
 * data as a strategic merge patch) restores them there. A DaemonSet without rules writes exactly the
 * data it wrote before, so existing revisions, and kube-controller-manager's byte comparison after a
 * migration, are untouched; matching reads the rules from either place, so a revision matches
 * whichever kind holds the same template and rules.
 */
import type { DaemonSet } from '../daemon-set.ts';
import type { JsonValue } from '../template-hash.ts';
import { canonicalJson } from '../template-hash.ts';
import { NODE_SIZING_ANNOTATION, NODE_SIZING_FIELD, rawNodeSizing } from './sizing-spec.ts';

type JsonObject = { [key: string]: JsonValue };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The DaemonSet's rules as its revision holds them: the JSON value of the field or the
 * annotation (an annotation that is not JSON as its text); undefined without rules.
 */
export function sizingOfDaemonSet(
  ds: Readonly<DaemonSet>,
): { value: JsonValue; inField: boolean } | undefined {
  const raw = rawNodeSizing(ds);
  if (raw === undefined) return undefined;
  if ('type' in raw) return { value: String(raw.value), inField: false };
  return { value: canonicalJson(raw.value), inField: raw.field === NODE_SIZING_FIELD };
}

/** The rules a revision's data holds (`spec.nodeSizing`, else the annotation's JSON); undefined when none. */
export function sizingOfRevisionData(data: unknown): JsonValue | undefined {
  if (!isObject(data)) return undefined;
  const spec = data.spec;
  if (isObject(spec) && spec.nodeSizing !== undefined && spec.nodeSizing !== null) return spec.nodeSizing;
  const metadata = data.metadata;
  const annotations = isObject(metadata) ? metadata.annotations : undefined;
  const text = isObject(annotations) ? annotations[NODE_SIZING_ANNOTATION] : undefined;
  if (typeof text !== 'string') return undefined;
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

/** `data` (a revision's) without the rules, in both places, and without what only held them. */
export function withoutSizing(data: JsonValue): JsonValue {
  if (!isObject(data)) return data;
  const { metadata, spec, ...rest } = data;
  const result: JsonObject = { ...rest };
  if (isObject(spec)) {
    const { nodeSizing: _, ...specRest } = spec;
    result.spec = specRest;
  } else if (spec !== undefined) result.spec = spec;
  if (isObject(metadata)) {
    const { annotations, ...metadataRest } = metadata;
    const kept = isObject(annotations)
      ? Object.entries(annotations).filter(([key]) => key !== NODE_SIZING_ANNOTATION)
      : [];
    const restored = {
      ...metadataRest,
      ...(kept.length > 0 ? { annotations: Object.fromEntries(kept) } : {}),
    };
    if (Object.keys(restored).length > 0) result.metadata = restored;
  }
  return result;
}

/** `data` with the DaemonSet's rules added where its kind holds them; unchanged without rules. */
export function withSizing(data: JsonObject, ds: Readonly<DaemonSet>): JsonObject {
  const sizing = sizingOfDaemonSet(ds);
  if (sizing === undefined) return data;
  if (sizing.inField)
    return { ...data, spec: { ...(isObject(data.spec) ? data.spec : {}), nodeSizing: sizing.value } };
  const text = typeof sizing.value === 'string' ? sizing.value : JSON.stringify(sizing.value);
  return { metadata: { annotations: { [NODE_SIZING_ANNOTATION]: text } }, ...data };
}
