/**
 * What every everynode subcommand shares: strict option parsing with one-line errors (exit 2),
 * `--help`, and where output goes.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { KubeConnectionError } from '../kube/errors/kube-api-errors.ts';

/** A bad command line; the message is the one line to print. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The most nodes a simulated cluster starts with (`everynode sim --nodes`, `everynode run
 * --sim-nodes`): five times the largest benchmarked cluster (test/bench: 20,000 nodes with 200,000
 * pods), well within the memory of a 24 GiB machine.
 */
export const MAX_SIM_NODES = 100_000;

/** Where a command writes, whether stdout is a terminal, and what stops a long-running command. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** True when stdout is a terminal (the live view is drawn only then). */
  readonly isTTY: boolean;
  /** Aborts a long-running command (SIGINT/SIGTERM when omitted). */
  readonly stopSignal?: AbortSignal;
  /** The environment (KUBECONFIG…); process.env when omitted. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
};

/** Parsed flags: strings and booleans by name. */
export type Flags = Readonly<Record<string, string | boolean | undefined>>;

/**
 * `args` with a negative number after a string option joined to it (`--timeout -5` as
 * `--timeout=-5`), so that the option's own check refuses the value by name instead of parseArgs
 * calling the argument ambiguous.
 */
function joinNegativeValues(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** Parses `args` strictly against `options` (plus --help/-h); throws UsageError with one line. */
export function parseFlags(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): Flags {
  return parseCommandLine(args, options, false).flags;
}

/**
 * Parses `args` strictly against `options` (plus --help/-h), with the arguments that are not
 * options when `positionals` allows them; throws UsageError with one line.
 */
export function parseCommandLine(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  positionals = true,
): { flags: Flags; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(args, options),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: positionals,
    });
    return { flags: parsed.values as Flags, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
}

/** The string flag `name`, or undefined. */
export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** The integer flag `name` within [min, max], `fallback` when absent; UsageError otherwise. */
export function integerFlag(
  flags: Flags,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = stringFlag(flags, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${text}'`);
  return n;
}

/**
 * `text` as a decimal number (`2`, `0.5`, `1e-1`), or undefined when it is not one: unlike
 * `Number`, no hexadecimal, binary, octal, blank or Infinity.
 */
export function decimalNumber(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** `--time-scale` (`text` of it): a decimal number > 0; UsageError otherwise. */
export function timeScaleOf(text: string): number {
  const scale = decimalNumber(text);
  if (scale === undefined || scale <= 0)
    throw new UsageError(`--time-scale must be a number > 0, got '${text}'`);
  return scale;
}

/** The time flag `name` (RFC 3339, e.g. 2026-01-01T10:00:00Z), or undefined; UsageError when unreadable. */
export function timeFlag(flags: Flags, name: string): Date | undefined {
  const text = stringFlag(flags, name);
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time.getTime())) {
    throw new UsageError(`--${name} must be a time like 2026-01-01T10:00:00Z, got '${text}'`);
  }
  return time;
}

/** The first line of `text` that says something (a YAML error goes on with a picture of the file). */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}

/**
 * An error and its causes on one line: what was being done, then why — skipping a cause whose text
 * the message already quotes. Only the first line of each message is kept.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return firstLine(String(error));
  const message = firstLine(error.message);
  if (error.cause === undefined) return message;
  const cause = describeError(error.cause);
  return message.includes(cause) ? message : `${message}: ${cause}`;
}

/** True when `error`, or one of its causes, is the cluster not answering (refused, reset, DNS, TLS). */
export function isUnreachable(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof KubeConnectionError) return true;
  return false;
}

/**
 * Runs a command body with the shared conventions: `--help` prints `usage` (exit 0); a UsageError
 * prints one line and exits 2, as does a cluster that does not answer; any other error prints one
 * line (with its causes) and exits 1.
 */
export async function runCommand(
  name: string,
  usage: string,
  args: readonly string[],
  io: CliIo,
  body: () => Promise<number>,
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(usage);
    return 0;
  }
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`everynode ${name}: ${error.message} (see everynode ${name} --help)\n`);
      return 2;
    }
    io.stderr(`everynode ${name}: ${describeError(error)}\n`);
    return isUnreachable(error) ? 2 : 1;
  }
}
