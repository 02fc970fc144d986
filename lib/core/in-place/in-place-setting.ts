/**
 * Whether a DaemonSet updates its pods in place: `spec.updateStrategy.rollingUpdate.inPlace` on
 * everynode.dev/v1, the `everynode.dev/in-place` annotation on apps/v1 (the field wins), like the
 * other extensions. `IfPossible` patches a running pod when the revision change allows it
 * (in-place-change.ts: images, or container cpu and memory through pods/resize) and recreates it
 * otherwise, as OpenKruise Advanced DaemonSet's `InPlaceIfPossible`; `Never` (the default) always
 * recreates, as upstream does.
 *
 * An invalid value counts as `Never` and makes the DaemonSet invalid (its `ReplicaFailure`
 * condition and Warning event), so a typo never changes how pods are replaced unnoticed.
 */
import type { DaemonSet } from '../daemon-set.ts';
import { type FieldViolation, notSupported } from '../field-violation.ts';

/** Annotation carrying `inPlace` on an apps/v1 DaemonSet. */
export const IN_PLACE_ANNOTATION = 'everynode.dev/in-place';

/** The values of the setting. */
export const inPlaceModes = ['IfPossible', 'Never'] as const;
/** One of {@link inPlaceModes}. */
export type InPlaceMode = (typeof inPlaceModes)[number];

/** The mode when the DaemonSet does not say (or says something invalid). */
export const DEFAULT_IN_PLACE_MODE: InPlaceMode = 'Never';

const FIELD = 'spec.updateStrategy.rollingUpdate.inPlace';

/** The setting as written: where (for a violation), and the raw value; undefined when unset. */
function rawInPlace(ds: Readonly<DaemonSet>): { field: string; value: unknown } | undefined {
  const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate as Record<string, unknown> | undefined;
  const value = rollingUpdate?.inPlace;
  if (value !== undefined && value !== null) return { field: FIELD, value };
  const annotation = ds.metadata?.annotations?.[IN_PLACE_ANNOTATION];
  if (annotation === undefined) return undefined;
  return { field: `metadata.annotations[${IN_PLACE_ANNOTATION}]`, value: annotation };
}

const isMode = (value: unknown): value is InPlaceMode => inPlaceModes.some((mode) => mode === value);

/** The DaemonSet's in-place mode in effect: the field, else the annotation, else `Never` (also when invalid). */
export function inPlaceModeOf(ds: Readonly<DaemonSet>): InPlaceMode {
  const raw = rawInPlace(ds);
  return raw !== undefined && isMode(raw.value) ? raw.value : DEFAULT_IN_PLACE_MODE;
}

/**
 * Why the DaemonSet's in-place setting is invalid: a value other than `IfPossible` or `Never` (case
 * sensitive, as a CRD enum is), reported on the field or the annotation that holds it. Empty when
 * valid or unset.
 */
export function inPlaceSettingViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  const raw = rawInPlace(ds);
  if (raw === undefined || isMode(raw.value)) return [];
  return [notSupported(raw.field, raw.value, inPlaceModes)];
}
