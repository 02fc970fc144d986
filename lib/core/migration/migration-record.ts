/**
 * The record of a migration between the two DaemonSet kinds: a ControllerRevision beside the
 * DaemonSet's own, holding the source object, its current revision and its pods, written before
 * anything changes. It is what makes a migration resumable after a kill at any step: once the
 * source is deleted, the record is the only copy of its spec (docs/design.md, 29. Migrating between
 * the DaemonSet kinds).
 */
import { controllerRevisionName } from '../controller-revision.ts';
import { safeLabelValue } from '../safe-label-value.ts';

/** The two kinds a DaemonSet can be. */
export const daemonSetKinds = ['apps/v1', 'everynode.dev/v1'] as const;
/** One of {@link daemonSetKinds}. */
export type DaemonSetKind = (typeof daemonSetKinds)[number];

/** Labels the record with the DaemonSet it belongs to, as {@link safeLabelValue} of its name. */
export const MIGRATION_RECORD_LABEL = 'everynode.dev/migration-of';

/** The revision a source DaemonSet's pods run when its migration begins. */
export interface RecordedRevision {
  readonly name: string;
  /** Its controller-revision-hash label: what the pods carry. */
  readonly hash: string;
  readonly revision: number;
  readonly labels: Readonly<Record<string, string>>;
}

/** What a migration records before it changes anything. */
export interface MigrationRecord {
  readonly from: DaemonSetKind;
  readonly to: DaemonSetKind;
  readonly namespace: string;
  readonly name: string;
  readonly sourceUid: string;
  /** The source DaemonSet: its name, namespace, labels, annotations and spec. */
  readonly source: Readonly<Record<string, unknown>>;
  readonly currentRevision: RecordedRevision;
  /** The uids of the source's pods: none may be gone or new when the target has adopted them. */
  readonly podUids: readonly string[];
}

/** The name of the record of DaemonSet `name`: never one of its own revisions' (their hashes have no vowels). */
export function migrationRecordName(name: string): string {
  return controllerRevisionName(name, 'everynode-migration');
}

/** The ControllerRevision holding `record`. */
export function recordRevision(record: Readonly<MigrationRecord>): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: migrationRecordName(record.name),
      namespace: record.namespace,
      labels: { [MIGRATION_RECORD_LABEL]: safeLabelValue(record.name) },
    },
    revision: 0,
    data: { ...record },
  };
}

const isKind = (value: unknown): value is DaemonSetKind => daemonSetKinds.some((kind) => kind === value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function revisionOf(value: unknown): RecordedRevision | undefined {
  if (!isObject(value)) return undefined;
  const { name, hash, revision, labels } = value;
  if (!isString(name) || !isString(hash) || typeof revision !== 'number' || !isObject(labels))
    return undefined;
  if (!Object.values(labels).every(isString)) return undefined;
  return { name, hash, revision, labels: labels as Record<string, string> };
}

/** The record a ControllerRevision holds, or a sentence saying why it holds none. */
export function recordOf(revision: Readonly<Record<string, unknown>>): MigrationRecord | string {
  const data = revision.data;
  if (!isObject(data)) return 'its data is not an object';
  const { from, to, namespace, name, sourceUid, source, podUids } = data;
  const currentRevision = revisionOf(data.currentRevision);
  if (!isKind(from) || !isKind(to) || from === to) return 'its data names no pair of DaemonSet kinds';
  if (!isString(namespace) || !isString(name) || !isString(sourceUid) || !isObject(source))
    return 'its data names no source DaemonSet';
  if (currentRevision === undefined) return 'its data names no current revision';
  if (!Array.isArray(podUids) || !podUids.every(isString)) return 'its data lists no pods';
  return { from, to, namespace, name, sourceUid, source, currentRevision, podUids };
}
