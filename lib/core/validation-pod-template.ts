/**
 * The parts of upstream pkg/apis/core/validation ValidatePodTemplateSpec that would make
 * kube-apiserver refuse every pod of a DaemonSet: labels, annotations (qualified keys, at most
 * 256 KiB in all), volumes (named, unique, with a source), containers (present, named as DNS-1123
 * labels, unique, with an image), tolerations (ValidateTolerations), and the DaemonSet-specific
 * rules of apps validation ValidateDaemonSetSpec (restartPolicy Always, no activeDeadlineSeconds).
 * An everynode.dev/v1 DaemonSet keeps its template loosely, so these are everynode's own checks.
 */
import type { V1Container, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';
import {
  duplicate,
  type FieldViolation,
  invalid,
  nonNegative,
  notSupported,
  required,
  tooLong,
} from './field-violation.ts';
import { labelViolations } from './label-selector.ts';
import { dns1123LabelErrors, qualifiedNameErrors } from './object-names.ts';
import { tolerationViolations } from './validation-tolerations.ts';

const FIELD = 'spec.template';

/** Upstream apimachinery TotalAnnotationSizeLimitB: the keys and values of all annotations, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const UTF8 = new TextEncoder();

/** The violations of a DaemonSet's pod template; empty when valid. */
export function podTemplateViolations(template: Readonly<V1PodTemplateSpec> | undefined): FieldViolation[] {
  if (template === undefined || template === null) return [required(FIELD)];
  const violations: FieldViolation[] = [];
  for (const [key, value] of Object.entries(template.metadata?.labels ?? {})) {
    violations.push(...labelViolations(key, value, `${FIELD}.metadata.labels`));
  }
  violations.push(...annotationViolations(template.metadata?.annotations, `${FIELD}.metadata.annotations`));
  const spec = template.spec;
  if (spec === undefined || spec === null) return [...violations, required(`${FIELD}.spec`)];
  violations.push(...volumeViolations(spec.volumes, `${FIELD}.spec.volumes`));
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
  violations.push(...tolerationViolations(spec.tolerations, `${FIELD}.spec.tolerations`));
  return violations;
}

/**
 * Upstream ValidateAnnotations: each key a qualified name (checked lowercased: case does not
 * matter), and keys plus values at most {@link TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes in all.
 */
export function annotationViolations(
  annotations: Readonly<Record<string, string>> | undefined,
  field: string,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const message of qualifiedNameErrors(key.toLowerCase()))
      violations.push(invalid(field, key, message));
    size += UTF8.encode(key).length + UTF8.encode(String(value ?? '')).length;
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    violations.push(tooLong(field, '', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  }
  return violations;
}

/**
 * Upstream ValidateVolumes as far as the simulator runs volumes (it mounts none): each volume has
 * a source ("must specify a volume type") and a unique DNS-1123 label name.
 */
function volumeViolations(
  volumes: readonly Readonly<V1Volume>[] | undefined,
  field: string,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const names = new Set<string>();
  (volumes ?? []).forEach((volume, i) => {
    const path = `${field}[${i}]`;
    const sources = Object.entries(volume).filter(([k, v]) => k !== 'name' && v !== undefined && v !== null);
    if (sources.length === 0) violations.push(required(path, 'must specify a volume type'));
    const name = volume.name ?? '';
    if (name === '') violations.push(required(`${path}.name`));
    else
      for (const message of dns1123LabelErrors(name)) violations.push(invalid(`${path}.name`, name, message));
    if (names.has(name)) violations.push(duplicate(`${path}.name`, name));
    names.add(name);
  });
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
