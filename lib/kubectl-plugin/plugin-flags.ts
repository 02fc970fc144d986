/**
 * Command-line flags the way kubectl (cobra/pflag) reads them, so a command line written for
 * `kubectl rollout` works unchanged: `--name=value`, `--name value`, `-n value`, `-nvalue`,
 * `-n=value`, booleans as `--watch` or `--watch=false`, flags before, between and after the
 * arguments, `--` ending the flags; errors in pflag's words.
 */
import { parseGoDuration } from './go-duration.ts';
import { KubectlError } from './kubectl-error.ts';

/** The kinds of value a flag takes, as pflag's String, Bool, Int64 and Duration flags. */
export type FlagType = 'string' | 'bool' | 'int' | 'duration';

/** One flag: its long name, its one-letter shorthand if any, and the type of its value. */
export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: FlagType;
}

/** A flag's parsed value: the string, the boolean, the integer, or the duration in milliseconds. */
export type FlagValue = string | boolean | number;

/** What a command line holds: the flags given (last one wins) and the other arguments in order. */
export interface ParsedFlags {
  readonly values: ReadonlyMap<string, FlagValue>;
  readonly positionals: readonly string[];
}

/** `"-w, --watch"` or `"--timeout"`: how pflag names a flag in its messages. */
function flagTitle(spec: FlagSpec): string {
  return spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`;
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** `text` as the flag's value; throws pflag's `invalid argument` error when it is not one. */
function convert(spec: FlagSpec, text: string, hint: string): FlagValue {
  const invalid = (why: string) =>
    new KubectlError(`invalid argument ${JSON.stringify(text)} for "${flagTitle(spec)}" flag: ${why}`, {
      hint,
    });
  switch (spec.type) {
    case 'string':
      return text;
    case 'bool':
      if (GO_TRUE.has(text)) return true;
      if (GO_FALSE.has(text)) return false;
      throw invalid(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
    case 'int': {
      const value = Number(text);
      if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(value)) {
        throw invalid(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
      }
      return value;
    }
    case 'duration': {
      const parsed = parseGoDuration(text);
      if ('error' in parsed) throw invalid(parsed.error);
      return parsed.ms;
    }
  }
}

/**
 * Parses `args` against `specs` (pflag's interspersed parsing: flags may come anywhere); throws a
 * KubectlError with pflag's message and `hint` (the `See '… --help' for usage.` line) when a flag
 * is unknown, lacks its value or has a value of the wrong type.
 */
export function parseFlags(args: readonly string[], specs: readonly FlagSpec[], hint: string): ParsedFlags {
  const values = new Map<string, FlagValue>();
  const positionals: string[] = [];
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const byShort = new Map(specs.flatMap((spec) => (spec.short ? [[spec.short, spec] as const] : [])));
  let index = 0;
  const next = () => args[index++];
  while (index < args.length) {
    const arg = next() ?? '';
    if (arg === '--') {
      positionals.push(...args.slice(index));
      break;
    }
    if (arg.startsWith('--')) {
      const [name = '', inline] = splitOnce(arg.slice(2));
      const spec = byName.get(name);
      if (!spec) throw new KubectlError(`unknown flag: --${name}`, { hint });
      values.set(spec.name, readValue(spec, inline, next, `--${name}`, hint));
    } else if (arg.startsWith('-') && arg.length > 1) {
      const short = arg.slice(1, 2);
      const spec = byShort.get(short);
      if (!spec) throw new KubectlError(`unknown shorthand flag: '${short}' in ${arg}`, { hint });
      const attached = arg.slice(2);
      const inline = attached === '' ? undefined : attached.replace(/^=/, '');
      values.set(spec.name, readValue(spec, inline, next, `-${short}`, hint));
    } else {
      positionals.push(arg);
    }
  }
  return { values, positionals };
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function readValue(
  spec: FlagSpec,
  inline: string | undefined,
  next: () => string | undefined,
  written: string,
  hint: string,
): FlagValue {
  if (inline !== undefined) return convert(spec, inline, hint);
  if (spec.type === 'bool') return true;
  const value = next();
  if (value === undefined) throw new KubectlError(`flag needs an argument: ${written}`, { hint });
  return convert(spec, value, hint);
}

/**
 * The positional arguments of `args` up to `count` of them, skipping the flags of `specs` and the
 * values of those that take one — how cobra finds the subcommand before it parses the flags.
 */
export function leadingWords(args: readonly string[], specs: readonly FlagSpec[], count: number): string[] {
  const takesValue = new Set(
    specs.flatMap((spec) =>
      spec.type === 'bool' ? [] : [`--${spec.name}`, ...(spec.short ? [`-${spec.short}`] : [])],
    ),
  );
  const words: string[] = [];
  for (let index = 0; index < args.length && words.length < count; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') break;
    if (arg.startsWith('-') && arg.length > 1) {
      if (takesValue.has(arg)) index++;
      continue;
    }
    words.push(arg);
  }
  return words;
}
