/**
 * The process of the `kubectl-everynode` kubectl plugin (bin/kubectl-everynode.js): runs the
 * command line kubectl hands over and exits with its code, at once — an open watch or a keep-alive
 * connection to the API server must not keep a finished command alive.
 */
import { kubectlEverynode } from './kubectl-everynode.ts';

// Output piped into a command that stopped reading (`… | head`): stop quietly, as kubectl does.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// A signal ends the command with exit code 1, as kubectl's interrupt handler ends `rollout status`.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const)
  process.once(signal, () => process.exit(1));

/** Waits until `stream` has handed everything written to the operating system. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => (stream.writableNeedDrain ? stream.once('drain', resolve) : resolve()));
}

const code = await kubectlEverynode(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
