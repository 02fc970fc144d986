/**
 * Upstream pkg/apis/core/validation ValidateTolerations (and validateTaintEffect), with its field
 * paths and wording: kube-apiserver refuses a pod, and so every pod of a DaemonSet, whose
 * tolerations break these rules.
 */
import type { V1Toleration } from '@kubernetes/client-node';
import { type FieldViolation, invalid, notSupported } from './field-violation.ts';
import { labelValueErrors, qualifiedNameErrors } from './object-names.ts';

/** The taint effects a toleration may name (validateTaintEffect's validValues, in its order). */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/**
 * The violations of `tolerations` at `field` (`spec.tolerations`, `spec.template.spec.tolerations`):
 * a key must be a qualified name, an empty key needs operator Exists, tolerationSeconds needs
 * effect NoExecute, Equal (or empty) needs a label-syntax value, Exists needs an empty value (the
 * violation's value is then the whole toleration, as upstream reports it), any other operator is
 * unsupported, and a non-empty effect must be one of {@link TAINT_EFFECTS}.
 */
export function tolerationViolations(
  tolerations: readonly Readonly<V1Toleration>[] | undefined | null,
  field: string,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  (tolerations ?? []).forEach((toleration, i) => {
    const path = `${field}[${i}]`;
    const key = toleration.key ?? '';
    const operator = toleration.operator ?? '';
    const value = toleration.value ?? '';
    const effect = toleration.effect ?? '';
    for (const message of key === '' ? [] : qualifiedNameErrors(key)) {
      violations.push(invalid(`${path}.key`, key, message));
    }
    if (key === '' && operator !== 'Exists') {
      violations.push(
        invalid(
          `${path}.operator`,
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (toleration.tolerationSeconds !== undefined && toleration.tolerationSeconds !== null) {
      if (effect !== 'NoExecute') {
        violations.push(
          invalid(`${path}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
        );
      }
    }
    violations.push(...operatorViolations(toleration, `${path}.operator`, operator, value));
    if (effect !== '' && !(TAINT_EFFECTS as readonly string[]).includes(effect)) {
      violations.push(notSupported(`${path}.effect`, effect, TAINT_EFFECTS));
    }
  });
  return violations;
}

function operatorViolations(
  toleration: Readonly<V1Toleration>,
  field: string,
  operator: string,
  value: string,
): FieldViolation[] {
  switch (operator) {
    case '':
    case 'Equal': {
      const errors = labelValueErrors(value);
      return errors.length === 0 ? [] : [invalid(field, value, errors.join(';'))];
    }
    case 'Exists':
      return value === ''
        ? []
        : [invalid(field, toleration, "value must be empty when `operator` is 'Exists'")];
    default:
      return [notSupported(field, operator, ['Equal', 'Exists'])];
  }
}
