/**
 * Validation of a DaemonSet's updateStrategy: upstream pkg/apis/apps/validation
 * ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet, ValidatePositiveIntOrPercent and
 * IsNotMoreThan100Percent.
 */
import type { IntOrString, V1DaemonSetUpdateStrategy } from '@kubernetes/client-node';
import { type FieldViolation, invalid, nonNegative, notSupported, required } from './field-violation.ts';

const FIELD = 'spec.updateStrategy';
const PERCENT = /^[0-9]+%$/;

/**
 * The violations of `strategy`: type RollingUpdate or OnDelete; for RollingUpdate a rollingUpdate
 * block whose maxUnavailable and maxSurge are non-negative integers or percents of at most 100%,
 * exactly one of them non-zero.
 */
export function updateStrategyViolations(
  strategy: Readonly<V1DaemonSetUpdateStrategy> | undefined,
): FieldViolation[] {
  switch (strategy?.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      if (strategy.rollingUpdate === undefined || strategy.rollingUpdate === null) {
        return [required(`${FIELD}.rollingUpdate`)];
      }
      return rollingUpdateViolations(strategy.rollingUpdate.maxUnavailable, strategy.rollingUpdate.maxSurge);
    default:
      return [notSupported(FIELD, strategy?.type, ['RollingUpdate', 'OnDelete'])];
  }
}

function rollingUpdateViolations(
  maxUnavailable: IntOrString | undefined,
  maxSurge: IntOrString | undefined,
): FieldViolation[] {
  const unavailableField = `${FIELD}.rollingUpdate.maxUnavailable`;
  const surgeField = `${FIELD}.rollingUpdate.maxSurge`;
  const violations = [
    ...intOrPercentViolations(maxUnavailable, unavailableField),
    ...intOrPercentViolations(maxSurge, surgeField),
  ];
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    violations.push(invalid(surgeField, maxSurge, 'may not be set when maxUnavailable is non-zero'));
  } else if (!hasUnavailable && !hasSurge) {
    violations.push(required(unavailableField, 'cannot be 0 when maxSurge is 0'));
  }
  return violations;
}

/** ValidatePositiveIntOrPercent + IsNotMoreThan100Percent for one field. */
function intOrPercentViolations(value: IntOrString | undefined, field: string): FieldViolation[] {
  if (typeof value === 'number') return nonNegative(field, value);
  if (typeof value !== 'string') return [];
  if (!PERCENT.test(value)) {
    return [
      invalid(
        field,
        value,
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%')",
      ),
    ];
  }
  return Number.parseInt(value, 10) > 100 ? [invalid(field, value, 'must not be greater than 100%')] : [];
}

/** Upstream getIntOrPercentValue: the number of a percent, the integer, or 0 when neither parses. */
function intOrPercentValue(value: IntOrString | undefined): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const match = /^(-?\d+)%?$/.exec(value);
  return match ? Number.parseInt(match[1] ?? '0', 10) : 0;
}
