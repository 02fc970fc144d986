/**
 * How the long-running commands (`run`, `sim`) stop: on SIGINT, SIGTERM or SIGHUP they stop
 * cleanly (pipeline and cluster stopped, state and lock removed), then exit with the status a shell
 * reports for a process that signal ended, 128 + its number (Ctrl-C 130, SIGTERM 143), so a caller
 * sees why the command ended. A second signal of the same kind finds no handler and ends the
 * process at once, for a stop that hangs.
 */
import { constants } from 'node:os';

/** The signals a long-running command stops cleanly on. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** What stops a long-running command. */
export interface StopSignal {
  /** Aborted when the command is to stop. */
  readonly signal: AbortSignal;
  /**
   * The command's exit status: 128 + the number of the process signal that stopped it, or `code`
   * when no process signal did (it ended by itself, or through the given abort signal).
   */
  exitStatus(code: number): number;
  /** Stops listening for process signals. */
  dispose(): void;
}

/**
 * `given` when there is one (tests, embedding), with exit statuses unchanged; else an abort signal
 * that the first of {@link STOP_SIGNALS} the process receives aborts.
 */
export function stopSignal(given?: AbortSignal): StopSignal {
  if (given) return { signal: given, exitStatus: (code) => code, dispose: () => undefined };
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const stop = (name: NodeJS.Signals) => {
    received ??= name;
    controller.abort();
  };
  for (const name of STOP_SIGNALS) process.once(name, stop);
  return {
    signal: controller.signal,
    exitStatus: (code) => (received === undefined ? code : 128 + constants.signals[received]),
    dispose: () => {
      for (const name of STOP_SIGNALS) process.off(name, stop);
    },
  };
}
