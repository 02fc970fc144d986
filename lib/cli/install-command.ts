/**
 * `everynode install`: applies the `daemonsets.everynode.dev` CRD of infra/k8s and the RBAC the
 * functions need, rendered for the managed kind (lib/kube/rbac/rbac-manifest.ts), with `kubectl apply`
 * as an operator would; then prunes the everynode ClusterRoles and ClusterRoleBindings it no
 * longer renders (the single `everynode-controller` of earlier versions), as `kubectl apply --prune`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KubeConnectionError } from '../kube/errors/kube-api-errors.ts';
import { DEFAULT_MANAGED_KIND, type ManagedKind, parseManagedKind } from '../kube/managed-kind.ts';
import { PRUNE_SELECTOR, rbacObjects, renderRbacManifest } from '../kube/rbac/rbac-manifest.ts';
import { type CliIo, parseFlags, processIo, runCommand, stringFlag, UsageError } from './cli-args.ts';

/** Usage of `everynode install`. */
export const INSTALL_USAGE = `Usage: everynode install [--kubeconfig PATH] [--manage KIND] [--dry-run]

Applies the everynode CRD of infra/k8s (daemonsets.everynode.dev; not for apps/v1) and one
ClusterRole and ClusterRoleBinding per function (groups everynode:relay, everynode:router,
everynode:reconcile; infra/k8s/rbac.yaml for the default kind) with kubectl apply (kubectl must be
on PATH), then prunes the everynode ClusterRoles and ClusterRoleBindings it no longer renders.
  --kubeconfig PATH   the cluster (default: $KUBECONFIG or ~/.kube/config, as kubectl)
  --manage KIND       everynode.dev/v1 (default) or apps/v1: the DaemonSets the functions may manage
  --dry-run           validate on the server without changing anything (kubectl --dry-run=server)
  -h, --help          this help
`;

/** The directory of the manifests. */
export const MANIFESTS_DIR = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));

/** The CRD of the everynode DaemonSet, needed only when managing everynode.dev/v1. */
export const CRD_MANIFEST = `${MANIFESTS_DIR}crd-daemonsets.everynode.dev.yaml`;

/** The first line of kubectl's error output that says something. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('E0') && !line.startsWith('I0')) ?? 'kubectl failed'
  );
}

/** What kubectl says when the API server does not answer (client-go's dial, TLS and DNS errors). */
const UNREACHABLE =
  /dial tcp [^;"\n]*|Unable to connect to the server[^;\n]*|The connection to the server \S+ was refused|TLS handshake timeout|no such host/;

/**
 * kubectl's failure while `doing`, in one line (kubectl's own first line is kept, not the command
 * line of the failed exec): a KubeConnectionError when the cluster did not answer.
 */
function kubectlFailure(doing: string, stderr: string): Error {
  const unreachable = UNREACHABLE.exec(stderr);
  if (unreachable)
    return new KubeConnectionError(
      `${doing} with kubectl: no answer from the API server (${unreachable[0]})`,
    );
  return new Error(`${doing} with kubectl: ${firstLine(stderr)}`);
}

/** Runs kubectl for one install: its stdout of `args` (with the install's kubeconfig), `input` on its stdin. */
type Kubectl = (args: readonly string[], doing: string, input?: string) => Promise<string>;

function kubectlFor(io: CliIo, kubeconfig: string | undefined): Kubectl {
  const env = { ...process.env, ...io.env };
  return (args, doing, input) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        'kubectl',
        [...args, ...(kubeconfig ? ['--kubeconfig', kubeconfig] : [])],
        { env, timeout: 120_000 },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const failure = error as NodeJS.ErrnoException;
          if (failure.code === 'ENOENT') reject(new Error(`${doing}: kubectl is not on PATH`));
          else reject(kubectlFailure(doing, stderr || String(error)));
        },
      );
      child.stdin?.end(input ?? '');
    });
}

/**
 * Deletes the ClusterRoles and ClusterRoleBindings labelled {@link PRUNE_SELECTOR} that `kind`'s
 * manifest does not render (kubectl's prune, after the apply so rights never lapse); resolves to
 * kubectl's `<resource>/<name> pruned` lines.
 */
async function prune(kubectl: Kubectl, kind: ManagedKind, dryRun: readonly string[]): Promise<string> {
  const rendered = new Set(
    rbacObjects(kind).flatMap(({ role, binding }) => [
      `clusterrole.rbac.authorization.k8s.io/${role.metadata?.name}`,
      `clusterrolebinding.rbac.authorization.k8s.io/${binding.metadata?.name}`,
    ]),
  );
  const listing = ['get', 'clusterroles,clusterrolebindings', '-l', PRUNE_SELECTOR, '-o', 'name'];
  const labelled = (await kubectl(listing, 'listing everynode RBAC objects to prune')).split('\n');
  const stale = labelled.map((line) => line.trim()).filter((name) => name !== '' && !rendered.has(name));
  if (stale.length === 0) return '';
  await kubectl(['delete', ...stale, ...dryRun], `pruning ${stale.join(', ')}`);
  const suffix = dryRun.length > 0 ? ' (server dry run)' : '';
  return stale.map((name) => `${name} pruned${suffix}\n`).join('');
}

/** Runs `everynode install` with `args`; resolves to the exit code. */
export function runInstallCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('install', INSTALL_USAGE, args, io, async () => {
    const flags = parseFlags(args, {
      kubeconfig: { type: 'string' },
      manage: { type: 'string' },
      'dry-run': { type: 'boolean' },
    });
    const kind = parseManagedKind(stringFlag(flags, 'manage'));
    if (!kind)
      throw new UsageError(
        `--manage must be everynode.dev/v1 or apps/v1, got '${stringFlag(flags, 'manage')}'`,
      );
    const kubectl = kubectlFor(io, stringFlag(flags, 'kubeconfig'));
    const dryRun = flags['dry-run'] === true ? ['--dry-run=server'] : [];
    const crd = kind === DEFAULT_MANAGED_KIND ? ['-f', CRD_MANIFEST] : [];
    const applied = await kubectl(
      ['apply', ...crd, '-f', '-', ...dryRun],
      `applying the everynode ${crd.length > 0 ? 'CRD and ' : ''}RBAC for ${kind}`,
      renderRbacManifest(kind),
    );
    io.stdout(applied);
    io.stdout(await prune(kubectl, kind, dryRun));
    return 0;
  });
}
