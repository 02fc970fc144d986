/**
 * What a migration does next, decided from what the cluster shows now and nothing else, so that a
 * run killed at any point and started again picks up where the first stopped (docs/design.md, 29.
 * Migrating between the DaemonSet kinds). Its order never lets two controllers own a pod, nor a
 * controller see a node without its pod: the source goes first (its pods orphaned, not deleted),
 * and the target is created only once nothing is owned by the source any more.
 */
import type { DaemonSetKind, MigrationRecord } from './migration-record.ts';
import { migratedFrom } from './target-manifest.ts';

type Json = Record<string, unknown>;

/** What the cluster shows of one migration. */
export interface MigrationView {
  readonly from: DaemonSetKind;
  readonly to: DaemonSetKind;
  /** `daemonsets.apps "x" in namespace "ns"` and its twin of the target kind, for messages. */
  readonly sourceName: string;
  readonly targetName: string;
  readonly source?: Readonly<Json> | undefined;
  readonly target?: Readonly<Json> | undefined;
  readonly record?: Readonly<MigrationRecord> | undefined;
  /** With a target: whether it has adopted every recorded pod that still exists and observed itself. */
  readonly adopted?: boolean;
}

/** The next step. */
export type MigrationStep =
  /** Check that the source may move, then record it. */
  | { readonly kind: 'record' }
  /** Delete the source with propagationPolicy Orphan, if it still has the recorded uid. */
  | { readonly kind: 'delete-source'; readonly uid: string }
  /** The source is being deleted: wait for the garbage collector to orphan its dependents. */
  | { readonly kind: 'wait-source-gone' }
  /** Create the target from the record (for apps/v1, after writing its current revision as kube-controller-manager's). */
  | { readonly kind: 'create-target' }
  /** Wait for the target's controller to adopt the pods and revisions. */
  | { readonly kind: 'wait-adopted' }
  /** Delete the record: the migration is complete. */
  | { readonly kind: 'forget-record' }
  | { readonly kind: 'done'; readonly message: string }
  | { readonly kind: 'refuse'; readonly message: string };

function metaOf(obj: Readonly<Json>): { uid?: string; deletionTimestamp?: string } {
  return (obj.metadata ?? {}) as { uid?: string; deletionTimestamp?: string };
}

/** The step of a migration without a record: none begun, or one already complete. */
function unrecordedStep(view: Readonly<MigrationView>): MigrationStep {
  const { source, target } = view;
  if (source === undefined) {
    if (target !== undefined && migratedFrom(target)?.apiVersion === view.from)
      return { kind: 'done', message: `${view.targetName} is already migrated from ${view.from}` };
    return { kind: 'refuse', message: `${view.sourceName} not found` };
  }
  if (metaOf(source).deletionTimestamp !== undefined)
    return { kind: 'refuse', message: `${view.sourceName} is being deleted` };
  if (target !== undefined)
    return {
      kind: 'refuse',
      message: `${view.targetName} already exists: the name is taken in ${view.to}; delete or rename one of the two first`,
    };
  return { kind: 'record' };
}

/** The next step of the migration `view` shows. */
export function nextMigrationStep(view: Readonly<MigrationView>): MigrationStep {
  const { record, source, target } = view;
  if (record === undefined) return unrecordedStep(view);
  if (record.from !== view.from || record.to !== view.to)
    return {
      kind: 'refuse',
      message: `a migration of ${record.namespace}/${record.name} from ${record.from} to ${record.to} is under way: finish it first (everynode migrate ${record.from === 'apps/v1' ? 'ds' : 'eds'}/${record.name} -n ${record.namespace}${record.to === 'apps/v1' ? ' --to apps/v1' : ''})`,
    };
  if (source !== undefined) {
    const { uid, deletionTimestamp } = metaOf(source);
    if (uid !== record.sourceUid)
      return {
        kind: 'refuse',
        message: `${view.sourceName} was created again (uid ${uid}) after the migration recorded and deleted the one before it (uid ${record.sourceUid}), perhaps by a GitOps sync of its old manifest: delete it with --cascade=orphan and run the migration again`,
      };
    return deletionTimestamp === undefined ? { kind: 'delete-source', uid } : { kind: 'wait-source-gone' };
  }
  if (target === undefined) return { kind: 'create-target' };
  if (migratedFrom(target)?.uid !== record.sourceUid)
    return {
      kind: 'refuse',
      message: `${view.targetName} was created by someone else while the migration ran; delete it (kubectl delete --cascade=orphan) and run the migration again`,
    };
  return view.adopted === true ? { kind: 'forget-record' } : { kind: 'wait-adopted' };
}
