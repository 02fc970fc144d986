/**
 * The bounds on what hints carry (docs/design.md, 9. Hints, and why a stale hint is safe), so that
 * every trigger and work message stays within the 256 KiB that SQS takes per message and
 * EventBridge per PutEvents entry by construction, whatever the objects hinted: the API server
 * takes objects of 1.5 MiB, 256 KiB of annotations and labels without a bound on their number.
 *
 * - A pod hint carries the pod's labels only up to {@link MAX_POD_HINT_LABELS} of them and
 *   {@link MAX_POD_HINT_LABELS_BYTES}, and everynode's annotations only up to
 *   {@link MAX_POD_HINT_ANNOTATIONS_BYTES}. Past a cap it keeps only the labels everynode itself
 *   sets (revision hash, template generation, DaemonSet uid, node) and drops the annotations, and
 *   says so with `capped`: the pair and node steps then read the pair's pods rather than plan from
 *   a hint that lacks what they may read.
 * - Pair hints as a whole, like node hints (`MAX_NODE_HINTS_BYTES`), go only when their JSON fits
 *   in {@link MAX_PAIR_HINTS_BYTES} (a node with thousands of labels, a pod with thousands of
 *   conditions); beyond, the message goes without them and its step reads.
 */
import { NODE_LABEL } from '../core/daemon-pod.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  DAEMONSET_UID_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
} from '../core/daemon-set.ts';

/** The most labels a pod hint carries; a daemon pod has its template's few and everynode's four. */
export const MAX_POD_HINT_LABELS = 64;

/** The most UTF-8 bytes of JSON the labels of a pod hint take. */
export const MAX_POD_HINT_LABELS_BYTES = 4 * 1024;

/** The most UTF-8 bytes of JSON everynode's annotations of a pod hint take (the failure backoff: a few). */
export const MAX_POD_HINT_ANNOTATIONS_BYTES = 4 * 1024;

/** The largest serialized pair hints a message carries, as node hints: EventBridge bills per 64 KB. */
export const MAX_PAIR_HINTS_BYTES = 48 * 1024;

/** The labels everynode sets on its pods: all a capped pod hint keeps. */
const OWN_LABELS = [
  POD_TEMPLATE_GENERATION_LABEL,
  CONTROLLER_REVISION_HASH_LABEL,
  DAEMONSET_UID_LABEL,
  NODE_LABEL,
];

/** The most characters of a label value (the API server's bound), for the labels a capped hint keeps. */
const MAX_LABEL_VALUE = 63;

type StringMap = Readonly<Record<string, string>>;

/** The UTF-8 bytes of `value`'s JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** What a pod hint carries of the pod's labels and everynode's annotations. */
export interface CappedPodMaps {
  readonly labels: Record<string, string> | undefined;
  readonly annotations: Record<string, string> | undefined;
  /** Set when a cap cut labels or annotations: the hint cannot be planned from. */
  readonly capped: true | undefined;
}

function labelsFit(labels: StringMap | undefined): boolean {
  if (labels === undefined) return true;
  return Object.keys(labels).length <= MAX_POD_HINT_LABELS && jsonBytes(labels) <= MAX_POD_HINT_LABELS_BYTES;
}

function ownLabels(labels: StringMap): Record<string, string> | undefined {
  const kept = OWN_LABELS.flatMap((key) => {
    const value = labels[key];
    return value !== undefined && value.length <= MAX_LABEL_VALUE ? [[key, value] as const] : [];
  });
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * `labels` and `annotations` (everynode's only) as a pod hint carries them: whole within the caps,
 * else the labels everynode sets without the annotations, marked `capped`.
 */
export function cappedPodMaps(
  labels: Record<string, string> | undefined,
  annotations: Record<string, string> | undefined,
): CappedPodMaps {
  const whole = labelsFit(labels);
  const annotationsFit =
    annotations === undefined || jsonBytes(annotations) <= MAX_POD_HINT_ANNOTATIONS_BYTES;
  if (whole && annotationsFit) return { labels, annotations, capped: undefined };
  return {
    labels: whole || labels === undefined ? labels : ownLabels(labels),
    annotations: annotationsFit ? annotations : undefined,
    capped: true,
  };
}

/**
 * True when a step must read the pair's pods rather than plan from the hint `pod`: it is terminating
 * (its end is what the pair waits for) or `capped` (it lacks labels the plan may read).
 */
export function readsInsteadOf(pod: Readonly<{ deletionTimestamp?: string; capped?: true }>): boolean {
  return pod.deletionTimestamp !== undefined || pod.capped === true;
}

/** `hints` when their JSON fits in `maxBytes`, else undefined: the step then reads. */
export function hintsWithin<T>(hints: T, maxBytes: number = MAX_PAIR_HINTS_BYTES): T | undefined {
  return jsonBytes(hints) <= maxBytes ? hints : undefined;
}
