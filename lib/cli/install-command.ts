/**
 * `everynode install`: applies the manifests of infra/k8s (the `daemonsets.everynode.dev` CRD and
 * the RBAC the functions need) to a cluster with `kubectl apply`, as an operator would.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CliIo, parseFlags, processIo, runCommand, stringFlag } from './cli-args.ts';

/** Usage of `everynode install`. */
export const INSTALL_USAGE = `Usage: everynode install [--kubeconfig PATH] [--dry-run]

Applies the everynode CRD (daemonsets.everynode.dev) and RBAC manifests of infra/k8s to a cluster
with kubectl apply (kubectl must be on PATH).
  --kubeconfig PATH   the cluster (default: $KUBECONFIG or ~/.kube/config, as kubectl)
  --dry-run           validate on the server without changing anything (kubectl --dry-run=server)
  -h, --help          this help
`;

/** The directory of the manifests. */
export const MANIFESTS_DIR = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));

/** The first line of kubectl's error output that says something. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('E0') && !line.startsWith('I0')) ?? 'kubectl failed'
  );
}

/** Runs `everynode install` with `args`; resolves to the exit code. */
export function runInstallCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('install', INSTALL_USAGE, args, io, async () => {
    const flags = parseFlags(args, { kubeconfig: { type: 'string' }, 'dry-run': { type: 'boolean' } });
    const kubeconfig = stringFlag(flags, 'kubeconfig');
    const kubectlArgs = [
      'apply',
      '-f',
      MANIFESTS_DIR,
      ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []),
      ...(flags['dry-run'] === true ? ['--dry-run=server'] : []),
    ];
    try {
      const { stdout } = await promisify(execFile)('kubectl', kubectlArgs, {
        env: { ...process.env, ...io.env },
        timeout: 120_000,
      });
      io.stdout(stdout);
      return 0;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      if (failure.code === 'ENOENT') throw new Error('applying infra/k8s: kubectl is not on PATH');
      throw new Error(`applying infra/k8s with kubectl: ${firstLine(failure.stderr ?? String(error))}`);
    }
  });
}
