/**
 * The DaemonSet-wide revision step: which ControllerRevision is current, which to create, renumber
 * or delete (upstream pkg/controller/daemon/update.go constructHistory, dedupCurHistories,
 * snapshot and cleanupHistory), as a plan the pipeline executes.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { EverynodeError } from '../errors/everynode-error.ts';
import { controllerOf, isControlledBy } from './controller-ref.ts';
import { controllerRevisionFor, revisionHashOf, revisionMatches } from './controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from './daemon-set.ts';

/** A pod whose controller-revision-hash label must be set to `hash` (a de-duplicated revision's). */
export interface PodRelabel {
  pod: V1Pod;
  hash: string;
}

/** What to do with a DaemonSet's ControllerRevisions. */
export interface RevisionPlan {
  /** The hash new pods get: the current revision's controller-revision-hash. */
  currentHash: string;
  /** The current revision as it will be once the plan is applied. */
  current: V1ControllerRevision;
  /** A revision to create for a template no revision holds yet. */
  create?: V1ControllerRevision;
  /** The current revision renumbered to the next number (rollback to an old template). */
  update?: V1ControllerRevision;
  /** Duplicates of the current revision and old revisions beyond revisionHistoryLimit. */
  delete: V1ControllerRevision[];
  /** Pods labelled with a duplicate's hash, to relabel with {@link currentHash}. */
  relabel: PodRelabel[];
  /** status.collisionCount to write: bumped past name collisions, else the DaemonSet's (or 0). */
  collisionCount: number;
}

/**
 * Thrown when no free ControllerRevision name is found for a DaemonSet's template; cannot happen
 * with a finite revision list (each collision consumes a distinct revision), so it marks a bug.
 * Retryable: the revisions may have changed by the next attempt.
 */
export class RevisionNameError extends EverynodeError {
  constructor(dsName: string) {
    super(`planning revisions of DaemonSet ${dsName}: no free revision name`, true);
  }
}

function maxRevision(revisions: readonly Readonly<V1ControllerRevision>[]): number {
  return revisions.reduce((max, revision) => Math.max(max, revision.revision), 0);
}

/**
 * True when the revision `existing`, which has the name `ds`'s next revision would take, can stand
 * for it (upstream snapshot: `isEqual && IsControlledBy`): it holds the same data and is `ds`'s —
 * or nobody's, an orphan the DaemonSet step adopts before planning (the relay plans without
 * adopting and must find the same hash). A revision of another controller with the same name and
 * data is a collision: two DaemonSets whose names share their first 223 characters and their
 * template get the same revision name, and each needs a revision of its own.
 */
function reusable(ds: Readonly<DaemonSet>, existing: Readonly<V1ControllerRevision>): boolean {
  const owner = controllerOf(existing);
  return (owner === undefined || isControlledBy(existing, ds)) && revisionMatches(ds, existing);
}

/**
 * The revision holding `ds`'s template when none of its own does (upstream snapshot): the new
 * revision to create, or — when a {@link reusable} revision of that name exists — that one. A name
 * taken otherwise is a hash collision: the count is bumped (nil → 1, as upstream) and the name
 * recomputed, in one pass rather than upstream's status write and retry.
 */
function snapshot(
  ds: Readonly<DaemonSet>,
  number: number,
  all: readonly Readonly<V1ControllerRevision>[],
): { revision: V1ControllerRevision; created: boolean; collisionCount: number | undefined } {
  let collisionCount = ds.status?.collisionCount;
  // Each collision needs a distinct existing revision, so this ends within all.length + 1 rounds.
  for (let round = 0; round <= all.length; round++) {
    const candidate = controllerRevisionFor(ds, number, collisionCount);
    const existing = all.find((revision) => revision.metadata?.name === candidate.metadata?.name);
    if (existing === undefined) return { revision: candidate, created: true, collisionCount };
    if (reusable(ds, existing))
      return { revision: structuredClone(existing), created: false, collisionCount };
    collisionCount = (collisionCount ?? 0) + 1;
  }
  throw new RevisionNameError(ds.metadata?.name ?? '');
}

/** The duplicate kept among revisions holding the current template: the highest number, last wins. */
function keptDuplicate(currents: readonly Readonly<V1ControllerRevision>[]): Readonly<V1ControllerRevision> {
  let keep = currents[0] as Readonly<V1ControllerRevision>;
  for (const revision of currents) if (revision.revision >= keep.revision) keep = revision;
  return keep;
}

/**
 * Old revisions to delete beyond `spec.revisionHistoryLimit` (default 10), oldest number first,
 * skipping any whose hash a pod still carries (upstream cleanupHistory, which counts terminating
 * pods too).
 */
function historyToDelete(
  ds: Readonly<DaemonSet>,
  old: readonly Readonly<V1ControllerRevision>[],
  liveHashes: ReadonlySet<string>,
): V1ControllerRevision[] {
  let toKill = old.length - (ds.spec?.revisionHistoryLimit ?? 10);
  const doomed: V1ControllerRevision[] = [];
  for (const revision of [...old].sort((a, b) => a.revision - b.revision)) {
    if (toKill <= 0) break;
    if (liveHashes.has(revisionHashOf(revision))) continue;
    doomed.push(structuredClone(revision));
    toKill--;
  }
  return doomed;
}

function hashesOf(pods: readonly Readonly<V1Pod>[]): Set<string> {
  const hashes = new Set<string>();
  for (const pod of pods) {
    const hash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    if (hash) hashes.add(hash);
  }
  return hashes;
}

/**
 * De-duplicates revisions that all hold the current template (upstream dedupCurHistories): the
 * highest-numbered one is kept; pods labelled with another's hash are relabelled to the kept hash
 * (upstream relabels every pod whose hash differs, which would also mark pods of genuinely old
 * revisions as updated — we relabel only the duplicates' pods); a duplicate is deleted only once
 * no pod carries its hash, so the relabel and the delete never race.
 */
function dedup(
  currents: readonly Readonly<V1ControllerRevision>[],
  pods: readonly Readonly<V1Pod>[],
  liveHashes: ReadonlySet<string>,
): { keep: Readonly<V1ControllerRevision>; delete: V1ControllerRevision[]; relabel: PodRelabel[] } {
  const keep = keptDuplicate(currents);
  const keepHash = revisionHashOf(keep);
  const duplicates = currents.filter((revision) => revision !== keep);
  const duplicateHashes = new Set(duplicates.map(revisionHashOf).filter((hash) => hash !== keepHash));
  const relabel = pods
    .filter((pod) => duplicateHashes.has(pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? ''))
    .map((pod) => ({ pod: structuredClone(pod) as V1Pod, hash: keepHash }));
  const unused = duplicates.filter((revision) => {
    const hash = revisionHashOf(revision);
    return hash === keepHash || !liveHashes.has(hash);
  });
  return { keep, delete: unused.map((revision) => structuredClone(revision)), relabel };
}

/**
 * The revision plan for `ds` given the ControllerRevisions in its namespace (`revisions`; those it
 * controls form its history, any of them can cause a name collision) and its pods (`pods`; every
 * controller-revision-hash they carry protects that revision from deletion). Ports upstream
 * constructHistory: revisions whose data matches the template are current (de-duplicated), the
 * others old; with no current one a new revision numbered max(old)+1 is created; a current one
 * numbered below max(old)+1 — a rollback to an earlier template — is renumbered to it. Then
 * cleanupHistory deletes the oldest old revisions beyond revisionHistoryLimit that no pod uses.
 * The current revision is never deleted. Applying the plan and planning again yields no changes.
 */
export function planRevisions(
  ds: Readonly<DaemonSet>,
  revisions: readonly Readonly<V1ControllerRevision>[],
  pods: readonly Readonly<V1Pod>[],
): RevisionPlan {
  const history = revisions.filter((revision) => isControlledBy(revision, ds));
  const currents = history.filter((revision) => revisionMatches(ds, revision));
  const old = history.filter((revision) => !currents.includes(revision));
  const next = maxRevision(old) + 1;
  const liveHashes = hashesOf(pods);
  const plan = { delete: [] as V1ControllerRevision[], relabel: [] as PodRelabel[] };
  let current: V1ControllerRevision;
  let create: V1ControllerRevision | undefined;
  let update: V1ControllerRevision | undefined;
  let collisionCount = ds.status?.collisionCount;
  if (currents.length === 0) {
    const snap = snapshot(ds, next, revisions);
    current = snap.revision;
    create = snap.created ? snap.revision : undefined;
    collisionCount = snap.collisionCount;
  } else {
    const deduped = dedup(currents, pods, liveHashes);
    plan.delete.push(...deduped.delete);
    plan.relabel.push(...deduped.relabel);
    current = structuredClone(deduped.keep) as V1ControllerRevision;
    if (current.revision < next) update = current = { ...current, revision: next };
  }
  plan.delete.push(...historyToDelete(ds, old, liveHashes));
  const optional = { ...(create ? { create } : {}), ...(update ? { update } : {}) };
  return {
    currentHash: revisionHashOf(current),
    current,
    ...optional,
    ...plan,
    collisionCount: collisionCount ?? 0,
  };
}
