/**
 * The `everynode` command: a small dispatcher. Each subcommand lives in its own module, loaded
 * only when asked for; an unknown command exits 2 with one line, so scripts never mistake it for
 * success.
 */

// The AWS SDK warns on every start that its releases after January 2027 will need Node 22. The
// lockfile pins this SDK, which supports Node 20, so the warning is noise to `everynode` users;
// an operator who wants it sets the variable to false.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Output piped into a command that stopped reading (`everynode run | head`): stop quietly, as
// kubectl does, instead of dying on an unhandled EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** A subcommand: runs with the arguments after its name and resolves to the exit code. */
type Command = (args: readonly string[]) => Promise<number>;

const commands: Readonly<Record<string, { summary: string; run: Command }>> = {
  run: {
    summary: 'run the pipeline (relay, router, reconcile) locally, on a simulated or real cluster',
    run: async (args) => (await import('./run-command.ts')).runRunCommand(args),
  },
  install: {
    summary: 'apply the everynode CRD and RBAC manifests (infra/k8s) to a cluster',
    run: async (args) => (await import('./install-command.ts')).runInstallCommand(args),
  },
  migrate: {
    summary: 'move a DaemonSet between apps/v1 and everynode.dev/v1 without restarting its pods',
    run: async (args) => (await import('./migrate-command.ts')).runMigrateCommand(args),
  },
  replay: {
    summary: 'replay a window of archived triggers (local journal or EventBridge archive)',
    run: async (args) => (await import('./replay-command.ts')).runReplayCommand(args),
  },
  redrive: {
    summary: 'move work DLQ messages back to the work queue',
    run: async (args) => (await import('./redrive-command.ts')).runRedriveCommand(args),
  },
  resync: {
    summary: 'ask for every managed DaemonSet (or one) to be checked again',
    run: async (args) => (await import('./resync-command.ts')).runResyncCommand(args),
  },
  sim: {
    summary: 'run a simulated Kubernetes cluster for kubectl, tests and benchmarks',
    run: async (args) => (await import('./sim-command.ts')).runSimCommand(args),
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `Usage: everynode <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun everynode <command> --help for its options.\n`;
}

/** An error and its causes on one line: what was being done, then why. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause === undefined ? error.message : `${error.message}: ${describe(error.cause)}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(
      `everynode: unknown command "${name}" (commands: ${Object.keys(commands).join(', ')}; see everynode --help)\n`,
    );
    return 2;
  }
  return command.run(rest);
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // What a command did not catch itself (its module failed to load): still named by the command.
    const name =
      argv[0] !== undefined && Object.hasOwn(commands, argv[0]) ? `everynode ${argv[0]}` : 'everynode';
    process.stderr.write(`${name}: ${describe(error).split('\n')[0]}\n`);
    process.exit(1);
  },
);
