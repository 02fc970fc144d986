/**
 * `everynode migrate`: moves a DaemonSet between the built-in controller's kind and everynode's
 * without restarting one pod (docs/design.md, 29. Migrating between the DaemonSet kinds). Each
 * pass reads the cluster, takes the one step core/migration/migration-step.ts names and reads
 * again, so a run started after a kill at any point finishes the migration.
 */

import type { DaemonSetKind } from '../core/migration/migration-record.ts';
import { nextMigrationStep } from '../core/migration/migration-step.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../kube/connection/kubeconfig-connection.ts';
import { KubeJsonApi } from '../kube/requests/json-api.ts';
import {
  type CliIo,
  integerFlag,
  parseCommandLine,
  processIo,
  runCommand,
  stringFlag,
  UsageError,
} from './cli-args.ts';
import { MigrationCluster } from './migrate-cluster.ts';
import { migrationPlan } from './migrate-plan.ts';
import { checkPermissions, MigrationRefused, type MigrationRun, runMigrationStep } from './migrate-steps.ts';

/** Usage of `everynode migrate`. */
export const MIGRATE_USAGE = `Usage: everynode migrate ds/NAME [-n NAMESPACE] [--dry-run] [--force]
       everynode migrate eds/NAME --to apps/v1 [-n NAMESPACE] [--dry-run] [--force]

Moves a DaemonSet that kube-controller-manager runs (apps/v1) to everynode (everynode.dev/v1), or
back, without restarting or re-creating any of its pods: each keeps its UID, and the revision
history comes along. It records the DaemonSet, deletes it with propagationPolicy Orphan, creates
the other kind with the same spec and waits until that kind's controller has adopted every pod.
Interrupted at any step, the same command run again finishes the migration.
  -n, --namespace NS   the DaemonSet's namespace (default: the context's, else default)
  --to KIND            the kind to move to: everynode.dev/v1 for ds/NAME, apps/v1 for eds/NAME
  --dry-run            check, then print each step and what it would change; change nothing
  --force              migrate in the middle of a rollout (the new controller finishes it)
  --timeout SECONDS    how long to wait for the garbage collector and the adoption (default 300)
  --kubeconfig PATH    the cluster (default: $KUBECONFIG or ~/.kube/config, as kubectl)
  --context NAME       the kubeconfig context (default: the current one)
  -h, --help           this help
`;

/** The resource names kubectl accepts for each kind, and the kind they name. */
const SOURCE_KINDS: Readonly<Record<string, DaemonSetKind>> = {
  ds: 'apps/v1',
  daemonset: 'apps/v1',
  daemonsets: 'apps/v1',
  'daemonset.apps': 'apps/v1',
  'daemonsets.apps': 'apps/v1',
  eds: 'everynode.dev/v1',
  'daemonset.everynode.dev': 'everynode.dev/v1',
  'daemonsets.everynode.dev': 'everynode.dev/v1',
};

/** The DaemonSet named by `TYPE/NAME` and the kind to move it to. */
function targetOf(
  positionals: readonly string[],
  to: string | undefined,
): { name: string; from: DaemonSetKind; to: DaemonSetKind } {
  if (positionals.length !== 1) throw new UsageError('name one DaemonSet: ds/NAME or eds/NAME');
  const [type = '', name = '', ...rest] = (positionals[0] ?? '').split('/');
  const from = SOURCE_KINDS[type.toLowerCase()];
  if (from === undefined || name === '' || rest.length > 0)
    throw new UsageError(`'${positionals[0]}' is not ds/NAME or eds/NAME`);
  const other: DaemonSetKind = from === 'apps/v1' ? 'everynode.dev/v1' : 'apps/v1';
  if (to !== undefined && to !== other)
    throw new UsageError(`${type}/${name} is ${from}: it can only move to ${other}, not '${to}'`);
  return { name, from, to: other };
}

/** The SIGKILL a test asks for after `step` (EVERYNODE_MIGRATE_KILL_AFTER): a kill -9 between two steps. */
function killPoint(env: Readonly<Record<string, string | undefined>>): (step: string) => void {
  const after = env.EVERYNODE_MIGRATE_KILL_AFTER;
  return (step) => {
    if (step === after) process.kill(process.pid, 'SIGKILL');
  };
}

/** Runs `everynode migrate` with `args`; resolves to the exit code. */
export function runMigrateCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('migrate', MIGRATE_USAGE, args, io, async () => {
    const { flags, positionals } = parseCommandLine(args, {
      namespace: { type: 'string', short: 'n' },
      to: { type: 'string' },
      'dry-run': { type: 'boolean' },
      force: { type: 'boolean' },
      timeout: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
    });
    const { name, from, to } = targetOf(positionals, stringFlag(flags, 'to'));
    const timeoutMs = integerFlag(flags, 'timeout', 300, 1) * 1000;
    const env = { ...process.env, ...io.env };
    const kubeconfig = stringFlag(flags, 'kubeconfig') ?? env.KUBECONFIG?.split(':')[0];
    const kc = loadKubeConfig(kubeconfig ? { path: kubeconfig } : {});
    const context = stringFlag(flags, 'context');
    if (context !== undefined) {
      if (!kc.getContextObject(context)) throw new UsageError(`context "${context}" does not exist`);
      kc.setCurrentContext(context);
    }
    const namespace =
      stringFlag(flags, 'namespace') || kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
    const api = KubeJsonApi.forConnection(connectionFromKubeConfig(kc), 'everynode/migrate');
    const cluster = new MigrationCluster(api, namespace, name, from, to);
    const run: MigrationRun = {
      api,
      cluster,
      force: flags.force === true,
      say: (line) => io.stdout(`${line}\n`),
      deadlineMs: timeoutMs,
      afterStep: killPoint(env),
    };
    try {
      await checkPermissions(run);
      if (flags['dry-run'] === true) {
        for (const line of await migrationPlan(run)) io.stdout(`${line}\n`);
        return 0;
      }
      for (;;) {
        const view = await cluster.view();
        const finished = await runMigrationStep(run, view, nextMigrationStep(view));
        if (finished) return 0;
      }
    } catch (error) {
      if (!(error instanceof MigrationRefused)) throw error;
      io.stderr(`everynode migrate: ${error.message}\n`);
      return 1;
    }
  });
}
