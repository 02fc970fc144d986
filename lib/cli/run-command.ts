/**
 * `everynode run`: relay, router and reconcile in one process, through the same handlers as the
 * Lambda functions, over local SQS queues, against a real cluster or the embedded simulated one.
 */
import { resolve } from 'node:path';
import { type ManagedKind, parseManagedKind } from '../kube/managed-kind.ts';
import {
  type CliIo,
  type Flags,
  integerFlag,
  MAX_SIM_NODES,
  parseFlags,
  processIo,
  runCommand,
  stringFlag,
  timeScaleOf,
  UsageError,
} from './cli-args.ts';
import type { ClusterChoice } from './run-cluster.ts';
import type { RunOptions } from './run-pipeline.ts';
import { lockStateDir } from './state-dir-lock.ts';
import { stopSignal } from './stop-signal.ts';

/** Usage of `everynode run`. */
export const RUN_USAGE = `Usage: everynode run [options]

Runs the everynode pipeline (relay, router, reconcile) in this process, over local SQS queues,
until Ctrl-C (exit status 130; 143 after SIGTERM). Without a kubeconfig it starts a simulated
cluster with the six seed nodes and applies the seed DaemonSets fluentd-elasticsearch and demo
(what npm start does).

  --kubeconfig PATH        a real cluster (default: $KUBECONFIG when set, else a simulated one)
  --sim-nodes N            simulated cluster with N nodes (up to 6 = the seed nodes, more =
                           node-00001…, at most 100000; default 6)
  --port N                 port of the simulated API server (default: any free port)
  --no-demo                do not apply the seed DaemonSets to the simulated cluster
  --time-scale X           multiplies every delay and grace period of the simulated cluster
                           (default 1; 0.1 runs it ten times faster)
  --least-privilege        run each function as its own user on the simulated cluster: HTTPS,
                           static tokens (tokens.csv in the state dir) and RBAC with the everynode
                           ClusterRoles of --manage; each function's kubeconfig is
                           kubeconfig-relay/-router/-reconcile in the state dir (the printed
                           kubeconfig stays the administrator's)
  --manage KIND            everynode.dev/v1 (default) or apps/v1
  --exit-when-converged    exit 0 once every managed DaemonSet is up to date and ready and no work
                           is queued; exit 1 after --timeout
  --timeout SECONDS        with --exit-when-converged (default 300)
  --state-dir DIR          journal, relay checkpoint, kubeconfig, pipeline state (default .everynode);
                           one run per directory: a second one refuses (exit 2) while the first lives;
                           the journal rotates at 64 MiB into journal.1.jsonl, keeping that one
                           previous file only: about 128 MiB at most (everynode replay reads both)
  --api-qps N              API requests per second of each component (default 100)
  --max-receive-count N    receives of a work message before the DLQ (default 5)
  --log-level LEVEL        DEBUG, INFO (default), WARN or ERROR
  -h, --help               this help
`;

const runFlags = {
  kubeconfig: { type: 'string' },
  'sim-nodes': { type: 'string' },
  port: { type: 'string' },
  'no-demo': { type: 'boolean' },
  'time-scale': { type: 'string' },
  'least-privilege': { type: 'boolean' },
  manage: { type: 'string' },
  'exit-when-converged': { type: 'boolean' },
  timeout: { type: 'string' },
  'state-dir': { type: 'string' },
  'api-qps': { type: 'string' },
  'max-receive-count': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

function clusterChoice(
  flags: Flags,
  env: Readonly<Record<string, string | undefined>>,
  managedKind: ManagedKind,
): ClusterChoice {
  const kubeconfig = stringFlag(flags, 'kubeconfig');
  const simFlags = ['sim-nodes', 'port', 'no-demo', 'time-scale', 'least-privilege'].filter(
    (f) => flags[f] !== undefined,
  );
  if (kubeconfig !== undefined && simFlags.length > 0) {
    throw new UsageError(`--kubeconfig names a real cluster; --${simFlags[0]} is for the simulated one`);
  }
  const path = kubeconfig ?? (simFlags.length === 0 ? env.KUBECONFIG || undefined : undefined);
  if (path !== undefined) return { type: 'kubeconfig', path };
  const timeScale = timeScaleFlag(flags);
  return {
    type: 'sim',
    nodes: integerFlag(flags, 'sim-nodes', 6, 0, MAX_SIM_NODES),
    port: integerFlag(flags, 'port', 0, 0, 65_535),
    demo: flags['no-demo'] !== true,
    ...(timeScale === undefined ? {} : { timeScale }),
    ...(flags['least-privilege'] === true ? { leastPrivilege: { managedKind } } : {}),
  };
}

/** `--time-scale`: a number > 0 (as `everynode sim` takes it), or undefined when not given. */
function timeScaleFlag(flags: Flags): number | undefined {
  const text = stringFlag(flags, 'time-scale');
  return text === undefined ? undefined : timeScaleOf(text);
}

/** Parses the arguments after `run`; throws UsageError with a one-line message when they are wrong. */
export function parseRunArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): RunOptions {
  const flags = parseFlags(args, runFlags);
  const managedKind = parseManagedKind(stringFlag(flags, 'manage'));
  if (!managedKind)
    throw new UsageError(
      `--manage must be everynode.dev/v1 or apps/v1, got '${stringFlag(flags, 'manage')}'`,
    );
  const logLevel = (stringFlag(flags, 'log-level') ?? 'INFO').toUpperCase();
  if (!['DEBUG', 'INFO', 'WARN', 'ERROR'].includes(logLevel)) {
    throw new UsageError(
      `--log-level must be DEBUG, INFO, WARN or ERROR, got '${stringFlag(flags, 'log-level')}'`,
    );
  }
  return {
    cluster: clusterChoice(flags, env, managedKind),
    managedKind,
    exitWhenConverged: flags['exit-when-converged'] === true,
    timeoutSeconds: integerFlag(flags, 'timeout', 300, 1),
    stateDir: resolve(stringFlag(flags, 'state-dir') ?? '.everynode'),
    apiQps: integerFlag(flags, 'api-qps', 100, 1),
    maxReceiveCount: integerFlag(flags, 'max-receive-count', 5, 1, 1000),
    logLevel: logLevel as RunOptions['logLevel'],
  };
}

/**
 * Runs `everynode run` with `args`; resolves to the exit code once the pipeline has stopped: 0, 1
 * when not converged in time, 128 + the signal's number when a process signal stopped it, and 2
 * without starting when a live run holds the state directory (one controller per directory).
 */
export function runRunCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('run', RUN_USAGE, args, io, async () => {
    const options = parseRunArgs(args, io.env ?? process.env);
    const lock = await lockStateDir(options.stateDir);
    if (!lock.held) {
      io.stderr(
        `everynode run: ${options.stateDir} is in use by the everynode run with pid ${lock.pid} ` +
          `(${lock.path}); stop it, or pass another --state-dir\n`,
      );
      return 2;
    }
    // Listening from here on: a signal while the cluster starts stops the run as soon as it is up.
    const stop = stopSignal(io.stopSignal);
    try {
      // The cluster and the pipeline load only now, once the arguments are known good: their
      // modules take seconds to load, and a mistyped flag is refused without them.
      const { runOnCluster } = await import('./run-pipeline.ts');
      return stop.exitStatus(await runOnCluster(options, io, stop.signal));
    } finally {
      stop.dispose();
      await lock.release();
    }
  });
}
