/**
 * Label and field selectors as the API server parses them from `?labelSelector=` and
 * `?fieldSelector=` (staging/src/k8s.io/apimachinery/pkg/labels/selector.go and
 * pkg/fields/selector.go), and their matching rules.
 */
import {
  type LabelRequirement,
  LabelSelectorSyntaxError,
  parseLabelRequirements,
} from '../../core/label-selector-grammar.ts';
import { SimApiError } from '../schema/api-error.ts';
import { labelValueError, qualifiedNameError } from '../schema/name-validation.ts';

/** One parsed field requirement (only `=`, `==` and `!=` exist for fields). */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
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
 * The requirements of a `?labelSelector=` value as the API server reads it (labels.Parse): the
 * grammar of `core/label-selector-grammar.ts`, each requirement's key and values checked as it is
 * read; all must hold (AND). An empty string selects everything. Throws a 400 SimApiError on text
 * the real server refuses, with its wording.
 */
export function parseLabelSelectorQuery(text: string): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  try {
    for (const requirement of parseLabelRequirements(text)) {
      checkRequirement(requirement);
      requirements.push(requirement);
    }
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) throw SimApiError.badRequest(error.message);
    throw error;
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
