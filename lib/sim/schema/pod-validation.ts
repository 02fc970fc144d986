/**
 * The parts of pkg/apis/core/validation/validation.go (ValidatePodSpec, ValidateTolerations) that
 * matter for what the simulator's clients send: containers, restartPolicy, dnsPolicy, tolerations.
 * What an update may change is in pod-update-validation.ts, what a resize may in
 * pod-resize-validation.ts.
 */
import type { FieldError } from './api-error.ts';
import { duplicate, invalid, notSupported, required } from './field-errors.ts';
import { dns1123LabelError, dns1123SubdomainError, qualifiedNameError } from './name-validation.ts';
import { compareQuantities, parseQuantity } from './quantity.ts';
import { asRecord } from './store-json.ts';

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
    errors.push(...validateResourceRequirements(container.resources, `${field}[${i}].resources`));
  });
  return errors;
}

/**
 * ValidateContainerResourceRequirements' quantity rules: none negative, and no request above its
 * limit (the error names `requests`, not the resource, as upstream's does).
 */
function validateResourceRequirements(value: unknown, field: string): FieldError[] {
  const resources = asRecord(value) ?? {};
  const limits = asRecord(resources.limits) ?? {};
  const requests = asRecord(resources.requests) ?? {};
  const errors: FieldError[] = [];
  for (const [kind, list] of [
    ['limits', limits],
    ['requests', requests],
  ] as const) {
    for (const [name, quantity] of Object.entries(list)) {
      if ((parseQuantity(quantity) ?? 0) < 0)
        errors.push(
          invalid(`${field}.${kind}[${name}]`, String(quantity), 'must be greater than or equal to 0'),
        );
    }
  }
  for (const [name, quantity] of Object.entries(requests)) {
    const limit = limits[name];
    if (limit !== undefined && compareQuantities(quantity, limit) > 0) {
      const detail = `must be less than or equal to ${name} limit of ${String(limit)}`;
      errors.push(invalid(`${field}.requests`, String(quantity), detail));
    }
  }
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
