/**
 * The textual label-selector syntax of `kubectl -l` (upstream apimachinery pkg/labels Parse),
 * used for selectors carried in annotations.
 */
import type { V1LabelSelector, V1LabelSelectorRequirement } from '@kubernetes/client-node';

const SET_REQUIREMENT = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^()]*)\)$/;
const EQUALITY_REQUIREMENT = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/;
const EXISTS_REQUIREMENT = /^(!?)\s*([^\s!=(),]+)$/;

/**
 * The LabelSelector that `text` denotes: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k`,
 * `!k`, `k in (a,b)`, `k notin (a,b)`; or the JSON form of a LabelSelector when it starts with `{`.
 * An empty text is the empty selector (matches everything). Undefined when `text` does not parse.
 */
export function parseLabelSelector(text: string): V1LabelSelector | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return parseJsonSelector(trimmed);
  if (trimmed === '') return {};
  const matchExpressions: V1LabelSelectorRequirement[] = [];
  for (const part of splitOutsideParentheses(trimmed)) {
    const requirement = parseRequirement(part.trim());
    if (requirement === undefined) return undefined;
    matchExpressions.push(requirement);
  }
  return { matchExpressions };
}

function parseRequirement(part: string): V1LabelSelectorRequirement | undefined {
  const set = SET_REQUIREMENT.exec(part);
  if (set) {
    const values = (set[3] ?? '').split(',').map((v) => v.trim());
    return { key: set[1] ?? '', operator: set[2] === 'in' ? 'In' : 'NotIn', values };
  }
  const equality = EQUALITY_REQUIREMENT.exec(part);
  if (equality) {
    return {
      key: equality[1] ?? '',
      operator: equality[2] === '!=' ? 'NotIn' : 'In',
      values: [equality[3] ?? ''],
    };
  }
  const exists = EXISTS_REQUIREMENT.exec(part);
  if (exists) return { key: exists[2] ?? '', operator: exists[1] === '!' ? 'DoesNotExist' : 'Exists' };
  return undefined;
}

function splitOutsideParentheses(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
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
