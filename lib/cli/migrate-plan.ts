/**
 * `everynode migrate --dry-run`: the same checks as a migration, then each step still to take and
 * what it would change, from the cluster as it is now. The only requests that are not reads are
 * access reviews and server-side dry runs of the target, which change nothing.
 */
import type { MigrationRecord } from '../core/migration/migration-record.ts';
import { migrationRecordName } from '../core/migration/migration-record.ts';
import { nextMigrationStep } from '../core/migration/migration-step.ts';
import type { JsonObject } from '../kube/requests/json-api.ts';
import { checkedRecord, controllerOf, MigrationRefused, type MigrationRun } from './migrate-steps.ts';

/** The steps in order, from which a plan starts at the one the cluster is at. */
const ORDER = [
  'record',
  'delete-source',
  'wait-source-gone',
  'create-target',
  'wait-adopted',
  'forget-record',
];

/** The lines of the plan of `run`'s migration; throws MigrationRefused where the migration would refuse. */
export async function migrationPlan(run: MigrationRun): Promise<string[]> {
  const { cluster } = run;
  const view = await cluster.view();
  const step = nextMigrationStep(view);
  if (step.kind === 'refuse') throw new MigrationRefused(step.message);
  if (step.kind === 'done') return [step.message];
  const record = view.record ?? (await checkedRecord(run, view.source as JsonObject));
  const { stored, changes } = await cluster.dryRunTarget(record);
  const rewrite = cluster.to === 'apps/v1' ? await cluster.revisionRewrite(record) : undefined;
  const lines = [
    `everynode migrate --dry-run: ${cluster.sourceName} to ${cluster.to}; nothing is changed`,
    ...(view.record ? [`a migration is under way: it goes on at step "${step.kind}"`] : []),
  ];
  const from = ORDER.indexOf(step.kind);
  const steps = describeSteps(run, record, { rewrite: rewrite !== undefined, changes });
  let n = 0;
  for (const [kind, text] of steps) if (ORDER.indexOf(kind) >= from) lines.push(`${++n}. ${text}`);
  const accepted = (stored.metadata as { name?: string } | undefined)?.name === cluster.name;
  lines.push(
    `the API server accepts ${cluster.targetName} (server-side dry run): ${accepted ? 'yes' : 'no'}`,
  );
  return lines;
}

/** Each step and what it changes. */
function describeSteps(
  run: MigrationRun,
  record: Readonly<MigrationRecord>,
  target: { rewrite: boolean; changes: readonly string[] },
): [string, string][] {
  const { cluster } = run;
  const { currentRevision: current, podUids } = record;
  const revision = `controllerrevisions.apps "${current.name}"`;
  const createLines = [
    `create ${cluster.targetName} with the same spec${target.changes.length === 0 ? '' : ', except:'}`,
    ...target.changes.map((change) => `   - ${change}`),
  ];
  if (target.rewrite)
    createLines.unshift(
      `write ${revision} again in kube-controller-manager's form (same name, hash ${current.hash} and revision ${current.revision}), so that it takes it as current; then`,
    );
  return [
    [
      'record',
      `record the migration in controllerrevisions.apps "${migrationRecordName(cluster.name)}": the manifest of ${cluster.sourceName}, its current revision ${current.revision} (${current.hash}) and its ${podUids.length} pods`,
    ],
    [
      'delete-source',
      `delete ${cluster.sourceName} (uid ${record.sourceUid}) with propagationPolicy Orphan: its ${podUids.length} pods and its revisions stay, without an owner`,
    ],
    [
      'wait-source-gone',
      `wait until the garbage collector has orphaned them and ${cluster.sourceName} is gone`,
    ],
    ['create-target', createLines.join('\n')],
    [
      'wait-adopted',
      `wait until ${controllerOf(cluster.to)} has adopted the ${podUids.length} pods and ${revision}, the pods' revision: no pod is created, deleted or restarted`,
    ],
    ['forget-record', 'delete the migration record'],
  ];
}
