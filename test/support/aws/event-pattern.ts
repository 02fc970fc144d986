/**
 * EventBridge event patterns ("Content filtering in Amazon EventBridge event patterns", and the
 * semantics of aws/event-ruler that EventBridge runs): a pattern names fields and lists the values
 * each may take; an event matches when every named field matches one of its values.
 *
 * - A field whose pattern is an object is matched field by field inside the event's object there.
 *   When the event holds an array of objects, one element has to match the whole sub-pattern
 *   (event-ruler's array-consistent matching).
 * - A field whose pattern is an array matches when any of the event's leaf values there (arrays
 *   are flattened, at any depth) matches any element: exact strings, numbers, booleans and `null`,
 *   or one of the operators `prefix`, `suffix`, `equals-ignore-case`, `wildcard`, `anything-but`,
 *   `numeric` and `exists`.
 * - `"$or": [ {...}, {...} ]` matches when any of its sub-patterns matches at that level.
 * - `exists: true` needs a leaf value there (an object is not one); `exists: false` needs none
 *   anywhere in the event at that path. `anything-but` needs a value: an absent field never matches.
 *
 * The whole pattern is checked when compiled: a malformed pattern, or an operator this matcher does
 * not implement (e.g. `cidr`), throws {@link EventPatternError} instead of matching silently.
 */

/** A pattern EventBridge would refuse, or one this matcher does not implement. */
export class EventPatternError extends Error {
  override readonly name = 'EventPatternError';
}

/** Matches one event (the whole envelope, e.g. `{ source, 'detail-type', detail, ... }`). */
export type EventMatcher = (event: unknown) => boolean;

type Scalar = string | number | boolean | null;
/** Matches the leaf values at one field; `root` and `path` serve `exists: false`. */
type LeafTest = (values: readonly Scalar[], root: unknown, path: readonly string[]) => boolean;
type ObjectTest = (
  object: Readonly<Record<string, unknown>>,
  root: unknown,
  path: readonly string[],
) => boolean;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The leaf values of `value`, arrays flattened at any depth; objects are not leaves. */
function leavesOf(value: unknown): Scalar[] {
  if (Array.isArray(value)) return value.flatMap(leavesOf);
  return isScalar(value) ? [value] : [];
}

/** The objects of `value`, arrays flattened at any depth. */
function objectsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objectsOf);
  return isObject(value) ? [value] : [];
}

/** Every leaf value found at `path` from `root`, through arrays anywhere on the way. */
function leavesAt(root: unknown, path: readonly string[]): Scalar[] {
  let level: unknown[] = [root];
  for (const key of path) level = level.flatMap(objectsOf).map((o) => o[key]);
  return level.flatMap(leavesOf);
}

function fail(path: readonly string[], message: string): never {
  throw new EventPatternError(
    `event pattern at ${path.length === 0 ? '(root)' : path.join('.')}: ${message}`,
  );
}

function stringArgument(value: unknown, path: readonly string[], operator: string): string {
  if (typeof value !== 'string') fail(path, `${operator} takes a string, not ${JSON.stringify(value)}`);
  return value;
}

/** `wildcard`: `*` is any run of characters, `\*` and `\\` the characters themselves. */
function wildcardTest(value: unknown, path: readonly string[]): (s: string) => boolean {
  const text = stringArgument(value, path, 'wildcard');
  if (text.includes('**')) fail(path, `wildcard ${text}: consecutive wildcard characters are not allowed`);
  let source = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== '*' && next !== '\\') fail(path, `wildcard ${text}: \\ escapes only * and \\`);
      source += `\\${next}`;
      i++;
    } else source += c === '*' ? '.*' : c.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, 's');
  return (s) => regex.test(s);
}

/** `prefix` / `suffix`, each optionally `{ "equals-ignore-case": ... }`. */
function affixTest(operator: 'prefix' | 'suffix', value: unknown, path: readonly string[]) {
  const ignoreCase = isObject(value);
  if (ignoreCase && Object.keys(value).join() !== 'equals-ignore-case') {
    fail(path, `${operator} takes a string or { "equals-ignore-case": string }`);
  }
  const affix = stringArgument(ignoreCase ? value['equals-ignore-case'] : value, path, operator);
  const want = ignoreCase ? affix.toLowerCase() : affix;
  return (s: string) => {
    const have = ignoreCase ? s.toLowerCase() : s;
    return operator === 'prefix' ? have.startsWith(want) : have.endsWith(want);
  };
}

/** `numeric`: `[op, n]` or a range `[">"|">=", low, "<"|"<=", high]`; JSON numbers only. */
function numericTest(value: unknown, path: readonly string[]): (n: number) => boolean {
  const ops: Record<string, (a: number, b: number) => boolean> = {
    '<': (a, b) => a < b,
    '<=': (a, b) => a <= b,
    '=': (a, b) => a === b,
    '>': (a, b) => a > b,
    '>=': (a, b) => a >= b,
  };
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 4)) {
    fail(path, `numeric takes [op, number] or [op, number, op, number], not ${JSON.stringify(value)}`);
  }
  const tests: Array<(n: number) => boolean> = [];
  for (let i = 0; i < value.length; i += 2) {
    const [op, bound] = [value[i], value[i + 1]];
    const compare = typeof op === 'string' ? ops[op] : undefined;
    if (!compare || typeof bound !== 'number') fail(path, `numeric ${JSON.stringify(value)} is malformed`);
    tests.push((n) => compare(n, bound));
  }
  if (value.length === 4 && !(['>', '>='].includes(value[0]) && ['<', '<='].includes(value[2]))) {
    fail(path, `numeric range ${JSON.stringify(value)} must be a lower then an upper bound`);
  }
  if (value.length === 4 && value[0] === '=') fail(path, 'numeric = takes no second bound');
  return (n) => tests.every((t) => t(n));
}

/** The positive test `anything-but` negates. */
function anythingButTest(value: unknown, path: readonly string[]): (v: Scalar) => boolean {
  if (isObject(value)) {
    const [key, ...more] = Object.keys(value);
    if (more.length > 0 || key === undefined) fail(path, 'anything-but takes one operator');
    const argument = value[key];
    const strings = Array.isArray(argument) ? argument : [argument];
    const onString = (test: (s: string) => boolean) => (v: Scalar) => typeof v === 'string' && test(v);
    switch (key) {
      case 'prefix':
      case 'suffix':
        return onString(affixTest(key, argument, path));
      case 'equals-ignore-case': {
        const set = new Set(strings.map((s) => stringArgument(s, path, key).toLowerCase()));
        return onString((s) => set.has(s.toLowerCase()));
      }
      case 'wildcard': {
        const tests = strings.map((s) => wildcardTest(s, path));
        return onString((s) => tests.some((t) => t(s)));
      }
      default:
        fail(path, `anything-but does not implement ${key}`);
    }
  }
  const excluded: unknown[] = Array.isArray(value) ? value : [value];
  const allStrings = excluded.filter((v) => typeof v === 'string').length === excluded.length;
  const allNumbers = excluded.filter((v) => typeof v === 'number').length === excluded.length;
  if (excluded.length === 0 || !(allStrings || allNumbers)) {
    fail(path, `anything-but takes strings or numbers (not both), not ${JSON.stringify(value)}`);
  }
  return (v) => excluded.includes(v);
}

/** One element of a field's value array. */
function compileElement(element: unknown, path: readonly string[]): LeafTest {
  if (isScalar(element)) return (values) => values.includes(element);
  if (!isObject(element)) fail(path, `arrays of values cannot hold ${JSON.stringify(element)}`);
  const [operator, ...more] = Object.keys(element);
  if (operator === undefined || more.length > 0)
    fail(path, `an operator object has one key, not ${JSON.stringify(element)}`);
  const argument = element[operator];
  const onStrings =
    (test: (s: string) => boolean): LeafTest =>
    (values) =>
      values.some((v) => typeof v === 'string' && test(v));
  switch (operator) {
    case 'prefix':
    case 'suffix':
      return onStrings(affixTest(operator, argument, path));
    case 'equals-ignore-case': {
      const want = stringArgument(argument, path, operator).toLowerCase();
      return onStrings((s) => s.toLowerCase() === want);
    }
    case 'wildcard':
      return onStrings(wildcardTest(argument, path));
    case 'numeric': {
      const test = numericTest(argument, path);
      return (values) => values.some((v) => typeof v === 'number' && test(v));
    }
    case 'anything-but': {
      const excluded = anythingButTest(argument, path);
      return (values) => values.some((v) => !excluded(v));
    }
    case 'exists':
      if (typeof argument !== 'boolean') fail(path, 'exists takes true or false');
      return argument
        ? (values) => values.length > 0
        : (_values, root, at) => leavesAt(root, at).length === 0;
    default:
      fail(path, `the harness does not implement the ${operator} operator`);
  }
}

function compileObject(pattern: Readonly<Record<string, unknown>>, path: readonly string[]): ObjectTest {
  const tests: ObjectTest[] = Object.entries(pattern).map(([key, value]) => {
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2 || !value.every(isObject)) {
        fail(path, '$or takes an array of at least two patterns');
      }
      const branches = value.map((branch) => compileObject(branch, path));
      return (object, root, at) => branches.some((branch) => branch(object, root, at));
    }
    const fieldPath = [...path, key];
    if (Array.isArray(value)) {
      if (value.length === 0) fail(fieldPath, 'an empty array matches nothing');
      const elements = value.map((element) => compileElement(element, fieldPath));
      return (object, root, at) => {
        const values = leavesOf(object[key]);
        return elements.some((element) => element(values, root, [...at, key]));
      };
    }
    if (isObject(value)) {
      const nested = compileObject(value, fieldPath);
      return (object, root, at) => {
        const objects = objectsOf(object[key]);
        return (objects.length > 0 ? objects : [{}]).some((o) => nested(o, root, [...at, key]));
      };
    }
    return fail(fieldPath, `a field's pattern is an array or an object, not ${JSON.stringify(value)}`);
  });
  return (object, root, at) => tests.every((test) => test(object, root, at));
}

/** Checks `pattern` whole and returns its matcher; throws {@link EventPatternError} if it is not valid. */
export function compileEventPattern(pattern: unknown): EventMatcher {
  if (!isObject(pattern)) throw new EventPatternError('an event pattern is a JSON object');
  const test = compileObject(pattern, []);
  return (event) => test(isObject(event) ? event : {}, event, []);
}

/** Whether `event` matches the EventBridge event pattern `pattern` (see the file comment). */
export function matchesEventPattern(pattern: unknown, event: unknown): boolean {
  return compileEventPattern(pattern)(event);
}
