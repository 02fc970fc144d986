/**
 * The textual label-selector syntax of `kubectl -l` (upstream apimachinery pkg/labels Parse),
 * used for selectors carried in annotations.
 */
import type { V1LabelSelector, V1LabelSelectorRequirement } from '@kubernetes/client-node';
import {
  type LabelRequirement,
  LabelSelectorSyntaxError,
  parseLabelRequirements,
} from './label-selector-grammar.ts';

/**
 * The LabelSelector that `text` denotes: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k`,
 * `!k`, `k in (a,b)`, `k notin (a,b)` (the grammar of `label-selector-grammar.ts`); or the JSON form
 * of a LabelSelector when it starts with `{`. An empty text is the empty selector (matches
 * everything). Undefined when `text` does not parse, or uses `>` or `<`, which a LabelSelector
 * cannot express (as upstream metav1.ParseToLabelSelector). Keys and values are not checked here:
 * `labelSelectorViolations` reports them field by field.
 */
export function parseLabelSelector(text: string): V1LabelSelector | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return parseJsonSelector(trimmed);
  if (trimmed === '') return {};
  const matchExpressions: V1LabelSelectorRequirement[] = [];
  try {
    for (const requirement of parseLabelRequirements(trimmed)) {
      const expression = selectorRequirementOf(requirement);
      if (expression === undefined) return undefined;
      matchExpressions.push(expression);
    }
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) return undefined;
    throw error;
  }
  return { matchExpressions };
}

/** The LabelSelector requirement of a parsed one; undefined for `Gt` and `Lt`, which it lacks. */
function selectorRequirementOf(
  requirement: Readonly<LabelRequirement>,
): V1LabelSelectorRequirement | undefined {
  const { key, operator, values } = requirement;
  switch (operator) {
    case 'In':
    case 'NotIn':
      return { key, operator, values: [...values] };
    case 'Exists':
    case 'DoesNotExist':
      return { key, operator };
    default:
      return undefined;
  }
}

function parseJsonSelector(text: string): V1LabelSelector | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isLabelSelectorShape(parsed) ? parsed : undefined;
}

/** True when `value` has the JSON shape of a LabelSelector (string maps and requirement objects). */
export function isLabelSelectorShape(value: unknown): value is V1LabelSelector {
  if (!isRecord(value)) return false;
  const { matchLabels, matchExpressions } = value;
  if (matchLabels !== undefined && !(isRecord(matchLabels) && Object.values(matchLabels).every(isString))) {
    return false;
  }
  return (
    matchExpressions === undefined ||
    (Array.isArray(matchExpressions) && matchExpressions.every(isRequirement))
  );
}

function isRequirement(value: unknown): boolean {
  if (!isRecord(value) || !isString(value.key) || !isString(value.operator)) return false;
  return value.values === undefined || (Array.isArray(value.values) && value.values.every(isString));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
