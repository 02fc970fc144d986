/**
 * The logging port every runtime writes through: structured lines as Powertools Logger writes them
 * on Lambda, and as the console-backed logger of `everynode run` writes them locally.
 */

/** Structured logging: a message and any number of objects merged into the line. */
export interface StructuredLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/** A logger that drops everything, for callers that do not log. */
export const silentLogger: StructuredLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
