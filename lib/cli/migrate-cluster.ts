/**
 * What `everynode migrate` reads and writes, through client-node as plain JSON (json-api.ts): the
 * source and target DaemonSets, the migration record, the revisions and pods. Each write is
 * guarded (uid preconditions, create-only), so a repeated or resumed run changes nothing twice.
 */
import type { V1ControllerRevision, V1LabelSelector, V1Pod } from '@kubernetes/client-node';
import { isControlledBy } from '../core/controller-ref.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import { labelSelectorQuery } from '../core/label-selector.ts';
import { controllerRevisionBody, kcmRevisionPatch } from '../core/migration/kcm-revision.ts';
import {
  type DaemonSetKind,
  type MigrationRecord,
  migrationRecordName,
  recordOf,
  recordRevision,
} from '../core/migration/migration-record.ts';
import type { MigrationView } from '../core/migration/migration-step.ts';
import { type SourceRollout, sourceRollout } from '../core/migration/source-rollout.ts';
import { targetManifest } from '../core/migration/target-manifest.ts';
import { AlreadyExistsError, NotFoundError } from '../kube/errors/kube-api-errors.ts';
import {
  describeRef,
  type JsonObject,
  type KubeJsonApi,
  type ResourceRef,
} from '../kube/requests/json-api.ts';

/** Where each kind's DaemonSets are served. */
export function daemonSetRef(kind: DaemonSetKind, namespace: string, name?: string): ResourceRef {
  const [group = '', version = ''] = kind.split('/');
  return { group, version, plural: 'daemonsets', namespace, ...(name === undefined ? {} : { name }) };
}

const revisionsRef = (namespace: string, name?: string): ResourceRef => ({
  group: 'apps',
  version: 'v1',
  plural: 'controllerrevisions',
  namespace,
  ...(name === undefined ? {} : { name }),
});

/** The pods of a selector, and how they stand against a recorded migration. */
export interface PodTally {
  /** Recorded pods still there. */
  readonly kept: number;
  /** Recorded pods gone: deleted by someone, or their node went away. */
  readonly gone: number;
  /** Pods of the target that the migration did not record: created by its controller. */
  readonly created: number;
  /** Recorded pods still there that the target does not control yet. */
  readonly unadopted: number;
}

/** One migration's view of the cluster. */
export class MigrationCluster {
  constructor(
    private readonly api: KubeJsonApi,
    readonly namespace: string,
    readonly name: string,
    readonly from: DaemonSetKind,
    readonly to: DaemonSetKind,
  ) {}

  get sourceName(): string {
    return describeRef(daemonSetRef(this.from, this.namespace, this.name));
  }

  get targetName(): string {
    return describeRef(daemonSetRef(this.to, this.namespace, this.name));
  }

  private get recordRef(): ResourceRef {
    return revisionsRef(this.namespace, migrationRecordName(this.name));
  }

  /** The source, target and record as they are now; a record that does not parse is an error. */
  async view(): Promise<MigrationView & { readonly recordUid?: string }> {
    const [source, target, recordObject] = await Promise.all([
      this.api.get(daemonSetRef(this.from, this.namespace, this.name)),
      this.api.get(daemonSetRef(this.to, this.namespace, this.name)),
      this.api.get(this.recordRef),
    ]);
    const record = recordObject && recordOf(recordObject);
    if (typeof record === 'string')
      throw new Error(`reading the migration record ${describeRef(this.recordRef)}: ${record}`);
    const recordUid = (recordObject?.metadata as { uid?: string } | undefined)?.uid;
    const adopted = record && target ? await this.adopted(record, target) : undefined;
    return {
      from: this.from,
      to: this.to,
      sourceName: this.sourceName,
      targetName: this.targetName,
      source,
      target,
      record,
      ...(adopted === undefined ? {} : { adopted }),
      ...(recordUid === undefined ? {} : { recordUid }),
    };
  }

  /** The pods of `selector` in the namespace. */
  async pods(selector: unknown): Promise<V1Pod[]> {
    const query = labelSelectorQuery(selector as V1LabelSelector);
    return (await this.api.list(
      { group: '', version: 'v1', plural: 'pods', namespace: this.namespace },
      query,
    )) as V1Pod[];
  }

  /** The ControllerRevisions of the namespace. */
  async revisions(): Promise<V1ControllerRevision[]> {
    return (await this.api.list(revisionsRef(this.namespace))) as unknown as V1ControllerRevision[];
  }

  /** Where the source stands: its current revision, its pods, a rollout under way. */
  async sourceRollout(source: Readonly<JsonObject>): Promise<SourceRollout> {
    const ds = source as DaemonSet;
    const [revisions, pods] = await Promise.all([this.revisions(), this.pods(ds.spec?.selector)]);
    return sourceRollout(ds, revisions, pods);
  }

  /** How the recorded pods stand against `target`. */
  async tally(record: Readonly<MigrationRecord>, target: Readonly<JsonObject>): Promise<PodTally> {
    const pods = await this.pods((record.source.spec as { selector?: unknown } | undefined)?.selector);
    const recorded = new Set(record.podUids);
    const present = pods.filter((p) => recorded.has(p.metadata?.uid ?? ''));
    return {
      kept: present.length,
      gone: recorded.size - present.length,
      created: pods.filter((p) => isControlledBy(p, target) && !recorded.has(p.metadata?.uid ?? '')).length,
      unadopted: present.filter((p) => !isControlledBy(p, target)).length,
    };
  }

  /** Whether `target` controls every recorded pod still there and the recorded revision, and has observed itself. */
  private async adopted(record: Readonly<MigrationRecord>, target: Readonly<JsonObject>): Promise<boolean> {
    const ds = target as DaemonSet;
    if ((ds.status?.observedGeneration ?? 0) < (ds.metadata?.generation ?? 1)) return false;
    const revision = await this.api.get(revisionsRef(this.namespace, record.currentRevision.name));
    if (revision !== undefined && !isControlledBy(revision, ds)) return false;
    return (await this.tally(record, target)).unadopted === 0;
  }

  /** Writes `record`; false when a record is there already (another run wrote it: look again). */
  async writeRecord(record: Readonly<MigrationRecord>): Promise<boolean> {
    try {
      await this.api.create(revisionsRef(this.namespace), recordRevision(record));
      return true;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
  }

  /** Deletes the record, if it is still the one of uid `uid`. */
  async forgetRecord(uid: string | undefined): Promise<void> {
    await this.ignoreGone(this.api.delete(this.recordRef, uid === undefined ? {} : { uid }));
  }

  /** Deletes the source if it still has `uid`, orphaning its pods and revisions. */
  async deleteSource(uid: string): Promise<void> {
    await this.ignoreGone(
      this.api.delete(daemonSetRef(this.from, this.namespace, this.name), {
        uid,
        propagationPolicy: 'Orphan',
      }),
    );
  }

  /** The target as the API server would store it (a server-side dry run), and the changes made to the source's manifest. */
  async dryRunTarget(
    record: Readonly<MigrationRecord>,
  ): Promise<{ stored: JsonObject; changes: readonly string[] }> {
    const { manifest, changes } = targetManifest(record.source, this.to, record.sourceUid);
    const stored = await this.api.create(daemonSetRef(this.to, this.namespace), manifest, { dryRun: true });
    return { stored, changes };
  }

  /** Creates the target from `record`; false when something of that name is there already. */
  async createTarget(record: Readonly<MigrationRecord>): Promise<boolean> {
    try {
      const { manifest } = targetManifest(record.source, this.to, record.sourceUid);
      await this.api.create(daemonSetRef(this.to, this.namespace), manifest);
      return true;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
  }

  /**
   * What the recorded current revision must hold for kube-controller-manager to take it as the
   * current one of the apps/v1 target: getPatch of the target as the server would store it.
   * Undefined when its data is that already.
   */
  async revisionRewrite(
    record: Readonly<MigrationRecord>,
  ): Promise<{ patch: string; uid?: string } | undefined> {
    const { stored } = await this.dryRunTarget(record);
    const patch = kcmRevisionPatch(stored);
    const revision = await this.api.get(revisionsRef(this.namespace, record.currentRevision.name));
    if (revision === undefined) return { patch };
    // The data as the server sent it, in its key order; a difference of escapes only costs a rewrite.
    if (JSON.stringify(revision.data) === patch) return undefined;
    return { patch, uid: (revision.metadata as { uid?: string }).uid ?? '' };
  }

  /** Deletes the recorded current revision if it still has `uid` (its data cannot be changed). */
  async deleteRevision(record: Readonly<MigrationRecord>, uid: string): Promise<void> {
    await this.ignoreGone(
      this.api.delete(revisionsRef(this.namespace, record.currentRevision.name), { uid }),
    );
  }

  /**
   * Writes the recorded current revision again, its data `patch`: same name, labels and number, no
   * owner. AlreadyExists means someone wrote one meanwhile: the next run looks at it again.
   */
  async writeRevision(record: Readonly<MigrationRecord>, patch: string): Promise<void> {
    const { name, labels, revision } = record.currentRevision;
    const metadata = { name, namespace: this.namespace, labels };
    const text = controllerRevisionBody(metadata, revision, patch);
    await this.api.create(revisionsRef(this.namespace), { metadata }, { text });
  }

  private async ignoreGone(request: Promise<void>): Promise<void> {
    try {
      await request;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
}
