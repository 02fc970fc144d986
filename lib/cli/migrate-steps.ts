/**
 * The steps of `everynode migrate`, one per call: each does its one guarded write (or waits a
 * moment) and says what it did; the caller reads the cluster again before the next.
 */
import type { MigrationRecord } from '../core/migration/migration-record.ts';
import type { MigrationStep, MigrationView } from '../core/migration/migration-step.ts';
import { safeLabelValue } from '../core/safe-label-value.ts';
import type { JsonObject, KubeJsonApi } from '../kube/requests/json-api.ts';
import { missingPermissions, recordCollision } from './migrate-checks.ts';
import type { MigrationCluster } from './migrate-cluster.ts';

/** A migration that must not go on; the message says why and what to do. */
export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

/** One run of the command. */
export interface MigrationRun {
  readonly api: KubeJsonApi;
  readonly cluster: MigrationCluster;
  readonly force: boolean;
  readonly say: (line: string) => void;
  /** How long a wait may last, in ms. */
  readonly deadlineMs: number;
  /** Called after each write, with its name: where a test kills the process. */
  readonly afterStep: (step: string) => void;
  /** When the current wait began, by step kind. */
  waits?: Map<string, number>;
}

/** The controller that runs DaemonSets of `kind`. */
export const controllerOf = (kind: string): string =>
  kind === 'apps/v1' ? 'kube-controller-manager' : 'everynode';

/** How often a wait reads the cluster again. */
const POLL_MS = 250;

/**
 * The checks before anything changes, then the record built from the source as it is. Throws
 * MigrationRefused for what must not go on; says what `--force` does when it is used.
 */
export async function checkedRecord(
  run: MigrationRun,
  source: Readonly<JsonObject>,
): Promise<MigrationRecord> {
  const { cluster } = run;
  const missing = await missingPermissions(run.api, cluster.namespace, cluster.from, cluster.to);
  if (missing.length > 0)
    throw new MigrationRefused(
      `missing permissions in namespace "${cluster.namespace}", so nothing was changed: ${missing.join(', ')}`,
    );
  const collision = recordCollision(source, safeLabelValue(cluster.name));
  if (collision !== undefined) throw new MigrationRefused(`${cluster.sourceName}: ${collision}`);
  const rollout = await cluster.sourceRollout(source);
  const why = rollout.unsettled.join('; ');
  if (why !== '' && !run.force)
    throw new MigrationRefused(
      `${cluster.sourceName} is in the middle of a rollout (${why}): wait until it is done (kubectl rollout status), or pass --force to let ${controllerOf(cluster.to)} finish it`,
    );
  const current = rollout.currentRevision;
  // Without it, nothing says which pods are current: the target could take old pods for current.
  if (current === undefined)
    throw new MigrationRefused(
      `no ControllerRevision of ${cluster.sourceName} holds its current template: ${controllerOf(cluster.from)} has not recorded it yet (is it running?); migrate once it has, even with --force`,
    );
  if (why !== '')
    run.say(
      `--force: ${cluster.sourceName} is in the middle of a rollout (${why}). Its pods keep running as they are; once ${controllerOf(cluster.to)} has adopted them it finishes the rollout to revision ${current.revision} under its own update strategy, replacing the pods of older revisions then.`,
    );
  const meta = (source.metadata ?? {}) as Record<string, unknown>;
  const { name, namespace, labels, annotations, ownerReferences } = meta;
  return {
    from: cluster.from,
    to: cluster.to,
    namespace: cluster.namespace,
    name: cluster.name,
    sourceUid: String(meta.uid ?? ''),
    source: { metadata: { name, namespace, labels, annotations, ownerReferences }, spec: source.spec },
    currentRevision: current,
    podUids: rollout.pods.map((p) => p.metadata?.uid ?? ''),
  };
}

/** Waits a moment, or refuses once the wait of `kind` has lasted past the deadline. */
async function waitFor(run: MigrationRun, kind: string, what: () => string | Promise<string>): Promise<void> {
  run.waits ??= new Map();
  const since = run.waits.get(kind) ?? Date.now();
  if (!run.waits.has(kind)) {
    run.waits.set(kind, since);
    run.say(`waiting: ${await what()}`);
  }
  if (Date.now() - since > run.deadlineMs)
    throw new MigrationRefused(
      `gave up after ${Math.round(run.deadlineMs / 1000)} s ${await what()}; nothing is lost: run the same command again to go on`,
    );
  await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

/**
 * Refuses, before any read or write of the migration, when the caller lacks a permission one of
 * its steps needs: a migration that stopped half-way for want of one would leave the DaemonSet
 * recorded and deleted until someone with it runs the command again.
 */
export async function checkPermissions(run: MigrationRun): Promise<void> {
  const { cluster } = run;
  const missing = await missingPermissions(run.api, cluster.namespace, cluster.from, cluster.to);
  if (missing.length > 0)
    throw new MigrationRefused(
      `missing permissions in namespace "${cluster.namespace}", so nothing was changed: ${missing.join(', ')}`,
    );
}

/** The apps/v1 target's current revision, written as kube-controller-manager would have written it. */
async function rewriteRevision(run: MigrationRun, record: Readonly<MigrationRecord>): Promise<void> {
  const rewrite = await run.cluster.revisionRewrite(record);
  const name = `controllerrevisions.apps "${record.currentRevision.name}"`;
  if (rewrite === undefined) return;
  if (rewrite.uid !== undefined) {
    await run.cluster.deleteRevision(record, rewrite.uid);
    run.afterStep('delete-revision');
  }
  await run.cluster.writeRevision(record, rewrite.patch);
  run.say(
    `wrote ${name} (revision ${record.currentRevision.revision}, hash ${record.currentRevision.hash}) in kube-controller-manager's form, so that it takes it as the current revision`,
  );
  run.afterStep('write-revision');
}

/** The last step: the record goes, and the pods are counted against it. */
async function forget(run: MigrationRun, view: MigrationView & { recordUid?: string }): Promise<void> {
  const { cluster } = run;
  const record = view.record as MigrationRecord;
  const tally = await cluster.tally(record, view.target as JsonObject);
  await cluster.forgetRecord(view.recordUid);
  run.afterStep('forget-record');
  const restarts = tally.gone + tally.created;
  run.say(
    `done: ${cluster.targetName} runs the ${tally.kept} pods of ${cluster.sourceName}, each with its UID; ${restarts === 0 ? 'no pod was created, deleted or restarted' : `${tally.gone} recorded pods are gone and ${tally.created} were created meanwhile`}`,
  );
}

/** Takes `step` of the migration `view` shows; resolves true once the migration is complete. */
export async function runMigrationStep(
  run: MigrationRun,
  view: MigrationView & { recordUid?: string },
  step: MigrationStep,
): Promise<boolean> {
  const { cluster } = run;
  switch (step.kind) {
    case 'refuse':
      throw new MigrationRefused(step.message);
    case 'done':
      run.say(step.message);
      return true;
    case 'record': {
      const record = await checkedRecord(run, view.source as JsonObject);
      if (await cluster.writeRecord(record))
        run.say(
          `recorded ${cluster.sourceName}: revision ${record.currentRevision.revision} (${record.currentRevision.hash}), ${record.podUids.length} pods`,
        );
      run.afterStep('record');
      return false;
    }
    case 'delete-source':
      await cluster.deleteSource(step.uid);
      run.say(`deleted ${cluster.sourceName} with propagationPolicy Orphan: its pods and revisions stay`);
      run.afterStep('delete-source');
      return false;
    case 'wait-source-gone':
      await waitFor(
        run,
        step.kind,
        () => `for the garbage collector to orphan the pods of ${cluster.sourceName}`,
      );
      return false;
    case 'create-target': {
      const record = view.record as MigrationRecord;
      if (cluster.to === 'apps/v1') await rewriteRevision(run, record);
      if (await cluster.createTarget(record)) run.say(`created ${cluster.targetName} with the same spec`);
      run.afterStep('create-target');
      return false;
    }
    case 'wait-adopted':
      await waitFor(run, step.kind, async () => {
        const tally = await cluster.tally(view.record as MigrationRecord, view.target as JsonObject);
        return `for ${controllerOf(cluster.to)} to adopt the pods of ${cluster.targetName} (${tally.kept - tally.unadopted} of ${tally.kept} adopted)`;
      });
      return false;
    case 'forget-record':
      await forget(run, view);
      return true;
  }
}
