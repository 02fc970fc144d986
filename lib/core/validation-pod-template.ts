/**
 * The parts of upstream pkg/apis/core/validation ValidatePodTemplateSpec a DaemonSet template most
 * often gets wrong: labels, containers (present, named as DNS-1123 labels, unique, with an image),
 * and the DaemonSet-specific rules of apps validation ValidateDaemonSetSpec (restartPolicy Always,
 * no activeDeadlineSeconds).
 */
import type { V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  duplicate,
  type FieldViolation,
  invalid,
  nonNegative,
  notSupported,
  required,
} from './field-violation.ts';
import { labelViolations } from './label-selector.ts';
import { dns1123LabelErrors } from './object-names.ts';

const FIELD = 'spec.template';

/** The violations of a DaemonSet's pod template; empty when valid. */
export function podTemplateViolations(template: Readonly<V1PodTemplateSpec> | undefined): FieldViolation[] {
  if (template === undefined || template === null) return [required(FIELD)];
  const violations: FieldViolation[] = [];
  for (const [key, value] of Object.entries(template.metadata?.labels ?? {})) {
    violations.push(...labelViolations(key, value, `${FIELD}.metadata.labels`));
  }
  const spec = template.spec;
  if (spec === undefined || spec === null) return [...violations, required(`${FIELD}.spec`)];
  if ((spec.containers ?? []).length === 0) violations.push(required(`${FIELD}.spec.containers`));
  const names = new Set<string>();
  const all = [
    ...(spec.initContainers ?? []).map((c, i) => [c, `${FIELD}.spec.initContainers[${i}]`] as const),
    ...(spec.containers ?? []).map((c, i) => [c, `${FIELD}.spec.containers[${i}]`] as const),
  ];
  for (const [container, field] of all) violations.push(...containerViolations(container, field, names));
  const restartPolicy = spec.restartPolicy ?? 'Always';
  if (restartPolicy !== 'Always') {
    violations.push(notSupported(`${FIELD}.spec.restartPolicy`, restartPolicy, ['Always']));
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    violations.push(
      invalid(
        `${FIELD}.spec.activeDeadlineSeconds`,
        spec.activeDeadlineSeconds,
        'activeDeadlineSeconds in DaemonSet is not Supported',
      ),
    );
  }
  violations.push(
    ...nonNegative(`${FIELD}.spec.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds),
  );
  return violations;
}

function containerViolations(
  container: Readonly<V1Container>,
  field: string,
  names: Set<string>,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const name = container.name ?? '';
  if (name === '') violations.push(required(`${field}.name`));
  else {
    for (const message of dns1123LabelErrors(name)) violations.push(invalid(`${field}.name`, name, message));
    if (names.has(name)) violations.push(duplicate(`${field}.name`, name));
    names.add(name);
  }
  if ((container.image ?? '').trim() === '') violations.push(required(`${field}.image`));
  return violations;
}
