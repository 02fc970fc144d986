/**
 * What every everynode subcommand shares: strict option parsing with one-line errors (exit 2),
 * `--help`, and where output goes.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A bad command line; the message is the one line to print. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

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

/** Parses `args` strictly against `options` (plus --help/-h); throws UsageError with one line. */
export function parseFlags(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): Flags {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
    return values as Flags;
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

/**
 * An error and its causes on one line: what was being done, then why — skipping a cause whose text
 * the message already quotes.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.cause === undefined) return error.message;
  const cause = describeError(error.cause);
  return error.message.includes(cause) ? error.message : `${error.message}: ${cause}`;
}

/**
 * Runs a command body with the shared conventions: `--help` prints `usage` (exit 0); a UsageError
 * prints one line and exits 2; any other error prints one line (with its causes) and exits 1.
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
    return 1;
  }
}
