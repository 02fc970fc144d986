/**
 * Label selectors as upstream apimachinery metav1.LabelSelectorAsSelector evaluates them, their text
 * form as a LIST's `labelSelector` (labels.Selector.String()), and the checks of metav1 validation
 * ValidateLabelSelector.
 */
import type { V1LabelSelector, V1LabelSelectorRequirement } from '@kubernetes/client-node';
import { type FieldViolation, forbidden, invalid, required } from './field-violation.ts';
import { labelValueErrors, qualifiedNameErrors } from './object-names.ts';

type Labels = Readonly<Record<string, string>> | undefined;

/**
 * True when `labels` satisfy `selector`: every matchLabels pair and every matchExpression (In,
 * NotIn, Exists, DoesNotExist). As LabelSelectorAsSelector: an empty selector matches everything,
 * a null/undefined one matches nothing, and a selector with an unknown operator (which upstream
 * cannot convert) matches nothing.
 */
export function labelSelectorMatches(
  selector: Readonly<V1LabelSelector> | null | undefined,
  labels: Labels,
): boolean {
  if (selector === null || selector === undefined) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (have[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((requirement) => requirementMatches(requirement, have));
}

/** True when the selector has no matchLabels and no matchExpressions (it selects everything). */
export function isEmptyLabelSelector(selector: Readonly<V1LabelSelector>): boolean {
  return (
    Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0
  );
}

function requirementMatches(requirement: Readonly<V1LabelSelectorRequirement>, labels: Labels): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, requirement.key);
  const value = labels?.[requirement.key];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return has && value !== undefined && values.includes(value);
    case 'NotIn':
      return !has || value === undefined || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/**
 * The violations of `selector` at JSON path `field` (upstream metav1validation.ValidateLabelSelector:
 * label keys and values well formed, In/NotIn with values, Exists/DoesNotExist without, known
 * operators). Empty when valid; an absent selector is valid here (callers require it separately).
 */
export function labelSelectorViolations(
  selector: Readonly<V1LabelSelector> | null | undefined,
  field: string,
): FieldViolation[] {
  if (selector === null || selector === undefined) return [];
  const violations: FieldViolation[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    violations.push(...labelViolations(key, value, `${field}.matchLabels`));
  }
  (selector.matchExpressions ?? []).forEach((requirement, i) => {
    violations.push(...requirementViolations(requirement, `${field}.matchExpressions[${i}]`));
  });
  return violations;
}

/**
 * The violations of one label `key: value` of a label map at JSON path `field` (upstream
 * ValidateLabels: key and value errors are both reported at the map's path, not the key's).
 */
export function labelViolations(key: string, value: string, field: string): FieldViolation[] {
  return [
    ...qualifiedNameErrors(key).map((message) => invalid(field, key, message)),
    ...labelValueErrors(value).map((message) => invalid(field, value, message)),
  ];
}

function requirementViolations(
  requirement: Readonly<V1LabelSelectorRequirement>,
  field: string,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        violations.push(required(`${field}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        violations.push(
          forbidden(`${field}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    default:
      violations.push(invalid(`${field}.operator`, requirement.operator, 'not a valid selector operator'));
  }
  for (const message of qualifiedNameErrors(requirement.key ?? '')) {
    violations.push(invalid(`${field}.key`, requirement.key, message));
  }
  values.forEach((value, i) => {
    for (const message of labelValueErrors(value))
      violations.push(invalid(`${field}.values[${i}]`, value, message));
  });
  return violations;
}

/**
 * The text form of `selector`: `k=v` for matchLabels, `k in (a,b)`, `k notin (a,b)`, `k`, `!k` for
 * matchExpressions, sorted by key so equal selectors give equal text; '' selects everything.
 */
export function labelSelectorQuery(selector: Readonly<V1LabelSelector> | undefined): string {
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    parts.push({ key, text: `${key}=${value}` });
  }
  for (const { key, operator, values = [] } of selector?.matchExpressions ?? []) {
    const list = [...values].sort().join(',');
    const text =
      operator === 'In'
        ? `${key} in (${list})`
        : operator === 'NotIn'
          ? `${key} notin (${list})`
          : operator === 'Exists'
            ? key
            : `!${key}`;
    parts.push({ key, text });
  }
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.text < b.text ? -1 : 1));
  return parts.map((part) => part.text).join(',');
}
