/**
 * Where the DaemonSet to migrate stands: its current revision (what its pods must carry so that the
 * target takes them as current) and whether a rollout is under way, which a migration refuses
 * unless forced: the target's controller would finish it under its own rules.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { isControlledBy } from '../controller-ref.ts';
import { revisionHashOf, revisionMatches } from '../controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../daemon-set.ts';
import { isPodReady } from '../pod-availability.ts';
import type { RecordedRevision } from './migration-record.ts';

/** The source DaemonSet's revisions and pods, as its controller left them. */
export interface SourceRollout {
  /** The revision of its template among those it controls; undefined when it has none yet. */
  readonly currentRevision: RecordedRevision | undefined;
  /** Its pods (controlled by it). */
  readonly pods: readonly V1Pod[];
  /** Why a migration now would interrupt a rollout, one sentence each; empty when it is settled. */
  readonly unsettled: readonly string[];
}

/** Where `ds` stands, from the ControllerRevisions and pods of its namespace. */
export function sourceRollout(
  ds: Readonly<DaemonSet>,
  revisions: readonly Readonly<V1ControllerRevision>[],
  pods: readonly Readonly<V1Pod>[],
): SourceRollout {
  const owned = revisions.filter((r) => isControlledBy(r, ds));
  const current = owned
    .filter((r) => revisionMatches(ds, r))
    .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0))[0];
  const currentRevision = current && {
    name: current.metadata?.name ?? '',
    hash: revisionHashOf(current),
    revision: current.revision ?? 0,
    labels: { ...current.metadata?.labels },
  };
  const mine = pods.filter((p) => isControlledBy(p, ds) && p.metadata?.deletionTimestamp === undefined);
  const unsettled: string[] = [];
  const generation = ds.metadata?.generation ?? 0;
  if ((ds.status?.observedGeneration ?? 0) < generation)
    unsettled.push(`its controller has not yet acted on generation ${generation}`);
  if (currentRevision !== undefined) {
    const old = mine.filter(
      (p) => p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== currentRevision.hash,
    );
    if (old.length > 0)
      unsettled.push(
        `${old.length} of its ${mine.length} pods run an older revision than ${currentRevision.revision}`,
      );
  }
  const unready = mine.filter((p) => !isPodReady(p)).length;
  if (unready > 0) unsettled.push(`${unready} of its ${mine.length} pods are not ready`);
  const desired = ds.status?.desiredNumberScheduled ?? 0;
  if (mine.length < desired)
    unsettled.push(`${desired - mine.length} of its ${desired} nodes have no pod yet`);
  return { currentRevision, pods: mine, unsettled };
}
