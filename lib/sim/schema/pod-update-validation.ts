/**
 * What a plain pod update (PUT or PATCH of pods, not a subresource) may change
 * (pkg/apis/core/validation/validation.go ValidatePodUpdate, ValidateContainerUpdates,
 * validateOnlyAddedTolerations, validateOnlyDeletedSchedulingGates): container and init container
 * images, activeDeadlineSeconds (set, or lowered), added tolerations, removed scheduling gates,
 * terminationGracePeriodSeconds from negative to 1. Anything else, `resources` included (that
 * goes through pods/resize), is Forbidden on `spec` with the list of what may change and a diff.
 */
import type { FieldError } from './api-error.ts';
import { forbidden, invalid, required } from './field-errors.ts';
import { podSpecDiff } from './go-cmp-diff.ts';
import { validatePodSpec } from './pod-validation.ts';
import { asRecord, jsonEqual } from './store-json.ts';

type Json = Record<string, unknown>;

const updatablePodSpecFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map((v) => asRecord(v) ?? {}) : [];
}

/** ValidateContainerUpdates: the same number of containers, each with an image; `stop` on a count change. */
function containerUpdateErrors(
  next: unknown,
  old: unknown,
  field: string,
): { errors: FieldError[]; stop: boolean } {
  const containers = listOf(next);
  if (containers.length !== listOf(old).length) {
    return { errors: [forbidden(field, 'pod updates may not add or remove containers')], stop: true };
  }
  const errors: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = typeof c.image === 'string' ? c.image : '';
    if (image === '') errors.push(required(`${field}[${i}].image`));
    if (image.trim().length !== image.length)
      errors.push(invalid(`${field}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errors, stop: false };
}

/** The activeDeadlineSeconds rules: set from nil, or lowered; never unset. */
function activeDeadlineErrors(next: unknown, old: unknown): FieldError[] {
  const field = 'spec.activeDeadlineSeconds';
  if (typeof next === 'number') {
    if (next < 0 || next > 2147483647)
      return [invalid(field, next, 'must be between 0 and 2147483647, inclusive')];
    if (typeof old === 'number' && old < next)
      return [invalid(field, next, 'must be less than or equal to previous value')];
    return [];
  }
  return typeof old === 'number'
    ? [invalid(field, null, 'must not update from a positive integer to nil value')]
    : [];
}

/** validateOnlyAddedTolerations: every old toleration is still there, its tolerationSeconds aside. */
function tolerationErrors(next: unknown, old: unknown): FieldError[] {
  const fresh = listOf(next);
  for (const toleration of listOf(old)) {
    const { tolerationSeconds: _s, ...rest } = toleration;
    const kept = fresh.some((t) => {
      const { tolerationSeconds: _n, ...other } = t;
      return jsonEqual(rest, other);
    });
    if (!kept)
      return [
        forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
      ];
  }
  return [];
}

/** validateOnlyDeletedSchedulingGates: no gate added. */
function schedulingGateErrors(next: unknown, old: unknown): FieldError[] {
  const oldNames = new Set(listOf(old).map((g) => g.name));
  return listOf(next)
    .filter((g) => !oldNames.has(g.name))
    .map((g) =>
      forbidden(
        'spec.schedulingGates',
        `only deletion is allowed, but found new scheduling gate '${String(g.name)}'`,
      ),
    );
}

/** The new spec with what an update may change taken back from the old one (the "munged" spec). */
function mungedSpec(next: Readonly<Json>, old: Readonly<Json>): Json {
  const munged: Json = { ...next };
  for (const field of ['containers', 'initContainers']) {
    const oldList = listOf(old[field]);
    if (Array.isArray(next[field]))
      munged[field] = listOf(next[field]).map((c, i) => ({ ...c, image: oldList[i]?.image }));
  }
  for (const field of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (old[field] === undefined) delete munged[field];
    else munged[field] = old[field];
  }
  const grace = old.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = grace;
  return munged;
}

/** ValidatePodUpdate's errors for the spec of an updated pod. */
export function validatePodUpdate(spec: unknown, oldSpec: unknown): FieldError[] {
  const next = asRecord(spec) ?? {};
  const old = asRecord(oldSpec) ?? {};
  const errors = validatePodSpec(next, 'spec');
  for (const field of ['containers', 'initContainers']) {
    const result = containerUpdateErrors(next[field], old[field], `spec.${field}`);
    errors.push(...result.errors);
    if (result.stop) return errors;
  }
  errors.push(...activeDeadlineErrors(next.activeDeadlineSeconds, old.activeDeadlineSeconds));
  errors.push(...tolerationErrors(next.tolerations, old.tolerations));
  errors.push(...schedulingGateErrors(next.schedulingGates, old.schedulingGates));
  if (jsonEqual(next, old)) return errors;
  const munged = mungedSpec(next, old);
  if (!jsonEqual(munged, old)) {
    const message = `pod updates may not change fields other than ${updatablePodSpecFields.join(',')}\n${podSpecDiff(old, munged)}`;
    errors.push(forbidden('spec', message));
  }
  return errors;
}
