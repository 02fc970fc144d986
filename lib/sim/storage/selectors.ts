/**
 * Label and field selectors as the API server parses them from `?labelSelector=` and
 * `?fieldSelector=` (staging/src/k8s.io/apimachinery/pkg/labels/selector.go and
 * pkg/fields/selector.go), and their matching rules.
 */
import { SimApiError } from '../schema/api-error.ts';
import { labelValueError, qualifiedNameError } from '../schema/name-validation.ts';

/** One parsed label requirement. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values: readonly string[];
}

/** One parsed field requirement (only `=`, `==` and `!=` exist for fields). */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

const symbols = ['!=', '==', '=', '!', '(', ')', ',', '>', '<'] as const;

/** Splits a label selector into identifiers and operator symbols, as labels.Lexer does. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const symbol = symbols.find((s) => text.startsWith(s, i));
    if (symbol) {
      tokens.push(symbol);
      i += symbol.length;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s!=(),<>]/.test(text.charAt(j))) j += 1;
    tokens.push(text.slice(i, j));
    i = j;
  }
  return tokens;
}

/** Parses `a in (x, y)` style value sets; returns the values and the index after `)`. */
function parseValueSet(tokens: readonly string[], start: number): { values: string[]; next: number } {
  if (tokens[start] !== '(')
    throw SimApiError.badRequest(
      `unable to parse requirement: found '${tokens[start] ?? ''}', expected: '('`,
    );
  const values: string[] = [];
  let i = start + 1;
  while (i < tokens.length && tokens[i] !== ')') {
    const token = tokens[i] ?? '';
    if (token === ',') {
      if (tokens[i - 1] === ',' || tokens[i - 1] === '(') values.push('');
    } else values.push(token);
    i += 1;
  }
  if (tokens[i] !== ')') throw SimApiError.badRequest("unable to parse requirement: found '', expected: ')'");
  if (tokens[i - 1] === ',') values.push('');
  return { values, next: i + 1 };
}

/** Parses one requirement starting at `start`; returns it and the index after it. */
function parseRequirement(
  tokens: readonly string[],
  start: number,
): { requirement: LabelRequirement; next: number } {
  let i = start;
  if (tokens[i] === '!') {
    const key = tokens[i + 1] ?? '';
    return { requirement: { key, operator: 'DoesNotExist', values: [] }, next: i + 2 };
  }
  const key = tokens[i] ?? '';
  i += 1;
  const op = tokens[i];
  if (op === undefined || op === ',')
    return { requirement: { key, operator: 'Exists', values: [] }, next: i };
  if (op === 'in' || op === 'notin') {
    const set = parseValueSet(tokens, i + 1);
    return {
      requirement: { key, operator: op === 'in' ? 'In' : 'NotIn', values: set.values },
      next: set.next,
    };
  }
  const operators: Record<string, LabelRequirement['operator']> = {
    '=': 'In',
    '==': 'In',
    '!=': 'NotIn',
    '>': 'Gt',
    '<': 'Lt',
  };
  const operator = operators[op];
  if (!operator)
    throw SimApiError.badRequest(
      `unable to parse requirement: found '${op}', expected: in, notin, =, ==, !=, gt, lt`,
    );
  const value = tokens[i + 1];
  const isValue =
    value !== undefined && value !== ',' && !symbols.includes(value as (typeof symbols)[number]);
  return { requirement: { key, operator, values: [isValue ? value : ''] }, next: isValue ? i + 2 : i + 1 };
}

/** Rejects keys and values the real parser rejects (labels.NewRequirement). */
function checkRequirement(requirement: LabelRequirement): void {
  const keyError = qualifiedNameError(requirement.key);
  if (keyError)
    throw SimApiError.badRequest(
      `unable to parse requirement: key: Invalid value: "${requirement.key}": ${keyError}`,
    );
  for (const value of requirement.values) {
    if (requirement.operator === 'Gt' || requirement.operator === 'Lt') {
      if (!/^-?\d+$/.test(value))
        throw SimApiError.badRequest(
          `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      continue;
    }
    const valueError = labelValueError(value);
    if (valueError)
      throw SimApiError.badRequest(
        `unable to parse requirement: values[0][${requirement.key}]: Invalid value: "${value}": ${valueError}`,
      );
  }
}

/**
 * The requirements of a label selector string; all must hold (AND). An empty string selects everything.
 * Throws a 400 SimApiError on syntax the real server refuses.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const tokens = tokenize(text);
  const requirements: LabelRequirement[] = [];
  let i = 0;
  while (i < tokens.length) {
    const { requirement, next } = parseRequirement(tokens, i);
    checkRequirement(requirement);
    requirements.push(requirement);
    i = next;
    if (i < tokens.length && tokens[i] !== ',')
      throw SimApiError.badRequest(`found '${tokens[i]}', expected: ',' or 'end of string'`);
    i += 1;
    if (i === tokens.length && tokens[i - 1] === ',')
      throw SimApiError.badRequest("found '', expected: identifier after ','");
  }
  return requirements;
}

/** Whether `labels` satisfy one requirement (labels.Requirement.Matches). */
export function matchesRequirement(
  requirement: Readonly<LabelRequirement>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const value = labels?.[requirement.key];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && requirement.values.includes(value);
    case 'NotIn':
      return value === undefined || !requirement.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value)) return false;
      const limit = Number(requirement.values[0]);
      return requirement.operator === 'Gt' ? Number(value) > limit : Number(value) < limit;
    }
  }
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabelSelector(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return requirements.every((r) => matchesRequirement(r, labels));
}

/** Splits on commas not escaped with a backslash, as fields.splitTerms does. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text.charAt(i + 1);
      i += 1;
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms;
}

/** Removes the `\` escapes of `\,`, `\=` and `\\` (fields.UnescapeValue). */
function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/**
 * The requirements of a field selector string (`spec.nodeName=n1,status.phase!=Failed`); all must
 * hold. Throws a 400 SimApiError on a term without an operator.
 */
export function parseFieldSelector(text: string): FieldRequirement[] {
  if (text.trim() === '') return [];
  return splitTerms(text).map((term) => {
    const match = /^([^=!]*)(!=|==|=)(.*)$/.exec(term);
    if (!match) throw SimApiError.badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const [, field = '', op = '=', value = ''] = match;
    return { field: field.trim(), operator: op === '!=' ? '!=' : '=', value: unescapeValue(value) };
  });
}
