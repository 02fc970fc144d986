/**
 * The one grammar of textual label selectors (`kubectl -l`, `?labelSelector=`): the tokens and
 * requirements of upstream apimachinery pkg/labels Parse, with its syntax error wording. Both
 * readers of selector text build on it: the rollout selector annotation (`label-selector-text.ts`)
 * and the simulated API server, which adds the key and value checks of labels.NewRequirement.
 */
import { EverynodeError } from '../errors/everynode-error.ts';

/** One requirement of a textual label selector, as the grammar reads it (keys and values unchecked). */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values: readonly string[];
}

/**
 * Label selector text that does not follow the grammar; the message is the API server's own
 * (`unable to parse requirement: found 'web', expected: '('`). The same text never parses, so it is
 * not retryable.
 */
export class LabelSelectorSyntaxError extends EverynodeError {
  constructor(message: string) {
    super(message, false);
  }
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

/** True when `token` is one of the selector's operator symbols rather than an identifier. */
function isSymbol(token: string): boolean {
  return (symbols as readonly string[]).includes(token);
}

/** `values` with `value` added once (the parser's values are a set). */
function withValue(values: string[], value: string): string[] {
  if (!values.includes(value)) values.push(value);
  return values;
}

const syntaxError = (message: string) =>
  new LabelSelectorSyntaxError(`unable to parse requirement: ${message}`);

/**
 * Parses `a in (x, y)` style value sets; returns the values and the index after `)`. Ported from
 * apimachinery's Parser.parseValues and parseIdentifiersList: `()` is the set of the empty value,
 * a comma may stand first, last or twice (each adding the empty value), and two values must be
 * separated by a comma.
 */
function parseValueSet(tokens: readonly string[], start: number): { values: string[]; next: number } {
  if (tokens[start] !== '(') throw syntaxError(`found '${tokens[start] ?? ''}', expected: '('`);
  let i = start + 1;
  const first = tokens[i];
  if (first === ')') return { values: [''], next: i + 1 };
  if (first === undefined || (isSymbol(first) && first !== ','))
    throw syntaxError(`found '${first ?? ''}', expected: ',', ')' or identifier`);
  const values: string[] = [];
  for (;;) {
    const token = tokens[i];
    i += 1;
    if (token !== undefined && !isSymbol(token)) {
      withValue(values, token);
      const after = tokens[i];
      if (after === ',') continue;
      if (after === ')') return { values, next: i + 1 };
      throw syntaxError(`found '${after ?? ''}', expected: ',' or ')'`);
    }
    if (token !== ',') throw syntaxError(`found '${token ?? ''}', expected: ',', or identifier`);
    if (values.length === 0) withValue(values, '');
    const after = tokens[i];
    if (after === ')') return { values: withValue(values, ''), next: i + 1 };
    if (after === ',') {
      i += 1;
      withValue(values, '');
    }
  }
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
    throw new LabelSelectorSyntaxError(
      `unable to parse requirement: found '${op}', expected: in, notin, =, ==, !=, gt, lt`,
    );
  const value = tokens[i + 1];
  const isValue =
    value !== undefined && value !== ',' && !symbols.includes(value as (typeof symbols)[number]);
  return { requirement: { key, operator, values: [isValue ? value : ''] }, next: isValue ? i + 2 : i + 1 };
}

/**
 * The requirements of label selector `text` (all must hold), one at a time in text order: `k=v`,
 * `k==v`, `k!=v`, `k>n`, `k<n`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-separated; none for
 * an empty text. Throws a {@link LabelSelectorSyntaxError} where the text leaves the grammar, after
 * yielding the requirements before that point: the API server checks each requirement as it reads
 * it, so a bad key ahead of a syntax error is the error it reports.
 */
export function* parseLabelRequirements(text: string): Generator<LabelRequirement, void, undefined> {
  const tokens = tokenize(text);
  let i = 0;
  while (i < tokens.length) {
    const { requirement, next } = parseRequirement(tokens, i);
    yield requirement;
    i = next;
    if (i < tokens.length && tokens[i] !== ',')
      throw new LabelSelectorSyntaxError(`found '${tokens[i]}', expected: ',' or 'end of string'`);
    i += 1;
    if (i === tokens.length && tokens[i - 1] === ',')
      throw new LabelSelectorSyntaxError("found '', expected: identifier after ','");
  }
}
