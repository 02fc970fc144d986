/**
 * The errors of `kubectl everynode`, printed as kubectl prints its own (cmdutil.CheckErr): an
 * answer of the API server as `Error from server (Reason): message`, anything else as
 * `error: message`, several of them one per line without the prefix; every one exits 1.
 */
import { EverynodeError } from '../errors/everynode-error.ts';

/** How a {@link KubectlError} is printed besides its message. */
export interface KubectlErrorOptions {
  /** The Status reason of an error answer of the API server ('' when it gave none). */
  readonly serverReason?: string;
  /** The usage hint line. */
  readonly hint?: string;
  /** Printed without the `error: ` prefix. */
  readonly bare?: boolean;
  readonly cause?: unknown;
}

/** A failure kubectl would report: `message` is the text after kubectl's `error: ` prefix. */
export class KubectlError extends EverynodeError {
  /**
   * The reason of the API server's Status (`NotFound`, `Conflict`…) when the server refused the
   * request; undefined for the plugin's own errors (bad arguments, a timeout, a missing revision).
   */
  readonly serverReason: string | undefined;
  /** A usage hint kubectl prints on the next line (`See 'kubectl … --help' for usage.`), or ''. */
  readonly hint: string;
  /** True when kubectl prints the message as it is, without `error: ` (a refused connection). */
  readonly bare: boolean;

  constructor(message: string, options: KubectlErrorOptions = {}) {
    super(message, false, options.cause === undefined ? {} : { cause: options.cause });
    this.serverReason = options.serverReason;
    this.hint = options.hint ?? '';
    this.bare = options.bare ?? false;
  }
}

/** One error as kubectl's StandardErrorMessage words it, without the `error: ` prefix of others. */
function standardMessage(error: unknown): { text: string; standard: boolean } {
  if (error instanceof KubectlError && error.serverReason !== undefined) {
    const reason = error.serverReason === '' ? '' : ` (${error.serverReason})`;
    return { text: `Error from server${reason}: ${error.message}`, standard: true };
  }
  const bare = error instanceof KubectlError && error.bare;
  return { text: error instanceof Error ? error.message : String(error), standard: bare };
}

/**
 * What kubectl prints on stderr for `errors` (cmdutil.checkErr): one error as its standard message
 * or `error: …` plus its usage hint; several one per line (MultipleErrors). Ends with a newline.
 */
export function kubectlErrorText(errors: readonly unknown[]): string {
  if (errors.length === 1) {
    const [error] = errors;
    const { text, standard } = standardMessage(error);
    const line = standard || text.startsWith('error: ') ? text : `error: ${text}`;
    const hint = error instanceof KubectlError && error.hint !== '' ? `\n${error.hint}` : '';
    return `${line}${hint}\n`;
  }
  return errors.map((error) => `${standardMessage(error).text}\n`).join('');
}
