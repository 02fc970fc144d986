/**
 * `everynode sim`: runs a simulated cluster (API server, scheduler, kubelets, node lifecycle, pod
 * GC — no DaemonSet controller) until interrupted, and writes a kubeconfig for kubectl.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AUTHORIZATION_MODES,
  type AuthorizationMode,
  isAuthorizationMode,
} from '../sim/auth/authorization-mode.ts';
import { startSimCluster } from '../sim/start-sim-cluster.ts';
import { describeError, MAX_SIM_NODES, timeScaleOf, UsageError } from './cli-args.ts';
import { stopSignal } from './stop-signal.ts';

/** Usage of `everynode sim`. */
export const SIM_USAGE = `Usage: everynode sim [--port N] [--nodes N] [--kubeconfig PATH] [--seed N] [--time-scale X]
                    [--tls] [--token-auth-file FILE] [--authorization-mode MODE]

Runs a simulated Kubernetes cluster on 127.0.0.1 until interrupted (Ctrl-C).
  --port N          port of the API server (default 0: any free port)
  --nodes N         nodes to start with: 0 = none, up to 6 = the seed nodes (worker-1, worker-ssd,
                    master-1, cordoned-1, notready-1, gpu-dedicated), more = node-00001…, at most
                    100000 (default 6)
  --kubeconfig PATH where to write the kubeconfig (default: a file in the temp directory)
  --seed N          seed of the fault injector (default 1)
  --time-scale X    multiplies every simulated delay and grace period (default 1)
  --tls             serve HTTPS with a CA made at start; the kubeconfig trusts it (default plain HTTP)
  --token-auth-file FILE
                    authenticate bearer tokens from FILE, kube-apiserver's static token CSV
                    (token,user,uid[,"group1,group2"]); unknown tokens get 401, requests without
                    one are system:anonymous; the kubeconfig gets a generated admin token
                    (default: no authentication, every request is the administrator)
  --authorization-mode MODE
                    AlwaysAllow (default: every request is served) or RBAC (system:masters may do
                    anything, everyone else what Roles, ClusterRoles and their bindings grant)
`;

/** A bad command line; the message is the one line to print (the one of every command). */
export { UsageError };

/** The parsed options of `everynode sim`. */
export interface SimCommandOptions {
  readonly port: number;
  readonly nodes: number;
  readonly kubeconfigPath: string | undefined;
  readonly seed: number;
  readonly timeScale: number;
  /** `--tls`: serve HTTPS. */
  readonly tls: boolean;
  /** `--token-auth-file`: the static token file. */
  readonly tokenAuthFile: string | undefined;
  /** `--authorization-mode`: AlwaysAllow or RBAC; undefined when not given. */
  readonly authorizationMode: AuthorizationMode | undefined;
  readonly help: boolean;
}

function integer(
  flag: string,
  value: string | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max)
    throw new UsageError(`--${flag} must be an integer from 0 to ${max}, got '${value}'`);
  return n;
}

/** The `--authorization-mode` value, checked; undefined when not given. */
function authorizationModeOf(value: string | undefined): AuthorizationMode | undefined {
  if (value === undefined || isAuthorizationMode(value)) return value;
  throw new UsageError(
    `--authorization-mode must be one of ${AUTHORIZATION_MODES.join(', ')}, got '${value}'`,
  );
}

/** Parses the arguments after `sim`; throws UsageError with a one-line message when they are wrong. */
export function parseSimArgs(args: readonly string[]): SimCommandOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        nodes: { type: 'string' },
        kubeconfig: { type: 'string' },
        seed: { type: 'string' },
        'time-scale': { type: 'string' },
        tls: { type: 'boolean' },
        'token-auth-file': { type: 'string' },
        'authorization-mode': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const str = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const timeScale = timeScaleOf(str('time-scale') ?? '1');
  return {
    port: integer('port', str('port'), 0, 65535),
    nodes: integer('nodes', str('nodes'), 6, MAX_SIM_NODES),
    kubeconfigPath: str('kubeconfig'),
    seed: integer('seed', str('seed'), 1),
    timeScale,
    tls: values.tls === true,
    tokenAuthFile: str('token-auth-file'),
    authorizationMode: authorizationModeOf(str('authorization-mode')),
    help: values.help === true,
  };
}

/** Where output goes, and what stops the cluster (SIGINT, SIGTERM or SIGHUP when omitted). */
export interface SimCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stopSignal?: AbortSignal;
}

const processIo: SimCommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * Runs `everynode sim` with `args`; resolves to the exit code once the cluster has stopped: 0, or
 * 128 + the signal's number when a process signal stopped it.
 */
export async function runSimCommand(args: readonly string[], io: SimCommandIo = processIo): Promise<number> {
  let options: SimCommandOptions;
  try {
    options = parseSimArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`everynode sim: ${error.message} (see everynode sim --help)\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(SIM_USAGE);
    return 0;
  }
  const stop = stopSignal(io.stopSignal);
  try {
    await serveUntil(stop.signal, options, io);
  } catch (error) {
    io.stderr(`everynode sim: ${describeError(error)}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
  io.stdout('everynode sim: stopped\n');
  return stop.exitStatus(0);
}

/** Serves a simulated cluster as `options` say until `signal` aborts, then stops it. */
async function serveUntil(
  signal: AbortSignal,
  options: Readonly<SimCommandOptions>,
  io: SimCommandIo,
): Promise<void> {
  const kubeconfigPath = options.kubeconfigPath ?? join(tmpdir(), `everynode-sim-${process.pid}.kubeconfig`);
  const cluster = await startSimCluster({
    port: options.port,
    nodes: options.nodes,
    seed: options.seed,
    kubeconfigPath,
    timing: { timeScale: options.timeScale },
    tls: options.tls,
    ...(options.tokenAuthFile === undefined ? {} : { tokenAuthFile: options.tokenAuthFile }),
    ...(options.authorizationMode === undefined ? {} : { authorizationMode: options.authorizationMode }),
  });
  io.stdout(
    `everynode sim: API server at ${cluster.url} with ${cluster.nodes.names().length} nodes\n` +
      `kubeconfig written to ${kubeconfigPath}\n` +
      `  export KUBECONFIG=${kubeconfigPath}\n` +
      'Press Ctrl-C to stop.\n',
  );
  // client-go applies a kubeconfig's credentials only over TLS (clientcmd DirectClientConfig
  // ClientConfig): over plain HTTP kubectl sends no token and is system:anonymous.
  if (options.tokenAuthFile !== undefined && !options.tls)
    io.stderr('everynode sim: kubectl sends no token over plain HTTP, so it is anonymous: add --tls\n');
  await untilAborted(signal);
  await cluster.stop();
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
