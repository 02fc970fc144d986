/**
 * The parts of pkg/apis/core/validation/validation.go (ValidatePodSpec, ValidateTolerations,
 * ValidatePodUpdate) that matter for what the simulator's clients send: containers, restartPolicy,
 * dnsPolicy, tolerations, and the pod spec's immutability.
 */
import type { FieldError } from './api-error.ts';
import { duplicate, forbidden, invalid, notSupported, required } from './field-errors.ts';
import { dns1123LabelError, dns1123SubdomainError, qualifiedNameError } from './name-validation.ts';
import { asRecord, jsonEqual } from './store-json.ts';

type Json = Record<string, unknown>;

/** ValidateContainers: at least one, each with a unique DNS-label name and an image. */
function validateContainers(list: unknown, field: string, requireOne: boolean): FieldError[] {
  const containers = Array.isArray(list) ? list : [];
  if (requireOne && containers.length === 0) return [required(field)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const container = asRecord(c) ?? {};
    const name = container.name;
    if (typeof name !== 'string' || name === '') errors.push(required(`${field}[${i}].name`));
    else {
      const nameError = dns1123LabelError(name);
      if (nameError) errors.push(invalid(`${field}[${i}].name`, name, nameError));
      if (names.has(name)) errors.push(duplicate(`${field}[${i}].name`, name));
      names.add(name);
    }
    if (typeof container.image !== 'string' || container.image.trim() === '')
      errors.push(required(`${field}[${i}].image`));
  });
  return errors;
}

/** ValidateTolerations. */
function validateTolerations(list: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  (Array.isArray(list) ? list : []).forEach((t, i) => {
    const tol = asRecord(t) ?? {};
    const path = `${field}[${i}]`;
    const key = typeof tol.key === 'string' ? tol.key : '';
    if (key !== '') {
      const keyError = qualifiedNameError(key);
      if (keyError) errors.push(invalid(`${path}.key`, key, keyError));
    } else if (tol.operator !== 'Exists') {
      errors.push(
        invalid(
          `${path}.operator`,
          tol.operator ?? '',
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (tol.tolerationSeconds !== undefined && tol.effect !== 'NoExecute') {
      errors.push(
        invalid(
          `${path}.effect`,
          tol.effect ?? '',
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    }
    const operator = tol.operator ?? 'Equal';
    if (operator === 'Exists' && tol.value !== undefined && tol.value !== '') {
      errors.push(invalid(`${path}.operator`, tol, "value must be empty when `operator` is 'Exists'"));
    } else if (operator !== 'Equal' && operator !== 'Exists') {
      errors.push(notSupported(`${path}.operator`, operator, ['Equal', 'Exists']));
    }
    if (
      tol.effect !== undefined &&
      tol.effect !== '' &&
      !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(tol.effect))
    ) {
      errors.push(
        notSupported(`${path}.effect`, tol.effect, ['NoExecute', 'NoSchedule', 'PreferNoSchedule']),
      );
    }
  });
  return errors;
}

/** The errors of a pod spec at `field` (`spec`, or `spec.template.spec` inside a DaemonSet). */
export function validatePodSpec(spec: unknown, field: string): FieldError[] {
  const s = asRecord(spec);
  if (!s) return [required(`${field}.containers`)];
  const errors = [
    ...validateContainers(s.containers, `${field}.containers`, true),
    ...validateContainers(s.initContainers, `${field}.initContainers`, false),
    ...validateTolerations(s.tolerations, `${field}.tolerations`),
  ];
  const restart = s.restartPolicy;
  if (restart !== undefined && !['Always', 'OnFailure', 'Never'].includes(String(restart))) {
    errors.push(notSupported(`${field}.restartPolicy`, restart, ['Always', 'OnFailure', 'Never']));
  }
  const dns = s.dnsPolicy;
  if (
    dns !== undefined &&
    !['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(String(dns))
  ) {
    errors.push(
      notSupported(`${field}.dnsPolicy`, dns, ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None']),
    );
  }
  if (typeof s.nodeName === 'string' && s.nodeName !== '') {
    const nodeError = dns1123SubdomainError(s.nodeName);
    if (nodeError) errors.push(invalid(`${field}.nodeName`, s.nodeName, nodeError));
  }
  return errors;
}

/** The spec `next` would have if only the fields ValidatePodUpdate allows to change had changed. */
function withMutableFieldsFrom(next: Json, old: Readonly<Json>): Json {
  const merged: Json = { ...next };
  for (const field of ['containers', 'initContainers']) {
    const list = merged[field];
    const oldList = old[field];
    if (Array.isArray(list) && Array.isArray(oldList) && list.length === oldList.length) {
      merged[field] = list.map((c, i) => ({ ...asRecord(c), image: asRecord(oldList[i])?.image }));
    }
  }
  merged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  const oldTolerations = Array.isArray(old.tolerations) ? old.tolerations : [];
  const newTolerations = Array.isArray(next.tolerations) ? next.tolerations : [];
  if (oldTolerations.every((t) => newTolerations.some((n) => jsonEqual(n, t))))
    merged.tolerations = old.tolerations;
  if (merged.activeDeadlineSeconds === undefined) delete merged.activeDeadlineSeconds;
  if (merged.tolerations === undefined) delete merged.tolerations;
  return merged;
}

const podUpdateMessage =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** ValidatePodUpdate: images, activeDeadlineSeconds and added tolerations may change; nothing else in spec. */
export function validatePodUpdate(spec: unknown, oldSpec: unknown): FieldError[] {
  const next = asRecord(spec) ?? {};
  const old = asRecord(oldSpec) ?? {};
  const errors = validatePodSpec(next, 'spec');
  if (!jsonEqual(withMutableFieldsFrom(next, old), old)) errors.push(forbidden('spec', podUpdateMessage));
  return errors;
}
