/**
 * Where the relay's watches resume when it starts: from the checkpoint only when it is of this
 * cluster and this cluster has reached its versions. A resourceVersion means nothing in another
 * cluster, and one a cluster has not reached (its etcd restored from a backup, so its versions went
 * back) makes a watch wait silently: kube-apiserver's watch cache sends only events newer than the
 * version asked for (cacher.go `cacheWatcher.process`), so the relay would forward nothing until
 * the cluster caught up, and then skip what changed before. Such a checkpoint is ignored, or such
 * a version dropped, and the resource starts from a fresh LIST followed by a resync request.
 */
import { TooLargeResourceVersionError } from '../../kube/errors/kube-api-errors.ts';
import type { ClusterIdentity, TriggeringResource } from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import { type RelayKube, WATCHED_POD_SELECTOR } from '../watches/resource-watch.ts';
import type { RelayCheckpoint } from './checkpoint.ts';

/** The checkpointed version each relayed resource resumes from; absent ones start from a LIST. */
export type ResumePoints = Partial<Record<TriggeringResource, string>>;

/**
 * Whether a checkpoint can be resumed from; if not, why ("the checkpoint <why>") and how loudly
 * to say so.
 */
export type CheckpointVerdict =
  | { readonly usable: true }
  | { readonly usable: false; readonly why: string; readonly level: 'info' | 'warn' };

const named = (cluster: Readonly<ClusterIdentity>) =>
  `kube-system uid ${cluster.kubeSystemUid} at ${cluster.server}`;

/**
 * Whether the relay, in the cluster `identity` and managing `managedKind`, may resume from
 * `checkpoint`: not when it names no cluster (written before checkpoints named one: it may be of
 * any cluster), another cluster, or the other managed kind (its versions are of another resource).
 */
export function checkpointVerdict(
  checkpoint: Readonly<RelayCheckpoint>,
  identity: Readonly<ClusterIdentity>,
  managedKind: ManagedKind,
): CheckpointVerdict {
  const { cluster } = checkpoint;
  if (cluster === undefined)
    return { usable: false, level: 'info', why: 'names no cluster (an older relay wrote it)' };
  if (cluster.kubeSystemUid !== identity.kubeSystemUid || cluster.server !== identity.server)
    return {
      usable: false,
      level: 'warn',
      why: `is of another cluster (${named(cluster)}; this cluster: ${named(identity)})`,
    };
  if (checkpoint.managedKind !== managedKind)
    return {
      usable: false,
      level: 'info',
      why: `was taken managing ${checkpoint.managedKind} DaemonSets, not ${managedKind}`,
    };
  return { usable: true };
}

/** What {@link planResume} needs. */
export interface ResumeInputs {
  readonly kube: RelayKube;
  readonly managedKind: ManagedKind;
  readonly logger: StructuredLogger;
  /** The stored checkpoint, if any. */
  readonly checkpoint: RelayCheckpoint | undefined;
  /** The cluster the relay runs against. */
  readonly identity: ClusterIdentity;
}

/** Where each resource resumes, and why the others start from a fresh LIST. */
export interface ResumePlan {
  readonly resumeFrom: ResumePoints;
  /** Why the checkpoint, or some of its versions, went unused (for the resync request); if any. */
  readonly why?: string;
  /** The resources whose checkpointed version the cluster has not reached: relisted. */
  readonly relisted: readonly TriggeringResource[];
}

/**
 * Where the relay resumes: nowhere without a usable checkpoint (logging why it is not); else from
 * each checkpointed version the cluster has reached, checked with one LIST per resource. Rejects
 * when such a LIST fails otherwise (the cluster cannot be listed: the relay cannot start).
 */
export async function planResume(inputs: Readonly<ResumeInputs>): Promise<ResumePlan> {
  const { checkpoint, logger } = inputs;
  if (checkpoint === undefined) return { resumeFrom: {}, relisted: [] };
  const verdict = checkpointVerdict(checkpoint, inputs.identity, inputs.managedKind);
  if (!verdict.usable) {
    logger[verdict.level](`ignoring the relay checkpoint, which ${verdict.why}; starting from a fresh LIST`, {
      checkpoint: { ...checkpoint },
    });
    return { resumeFrom: {}, why: `the stored checkpoint ${verdict.why}`, relisted: [] };
  }
  const versions = Object.entries(checkpoint.resourceVersions) as [TriggeringResource, string][];
  const reached = await Promise.all(versions.map(([resource, rv]) => hasReached(inputs.kube, resource, rv)));
  const resumeFrom: ResumePoints = {};
  const relisted: TriggeringResource[] = [];
  versions.forEach(([resource, rv], i) => {
    if (reached[i]) resumeFrom[resource] = rv;
    else relisted.push(resource);
  });
  if (relisted.length === 0) return { resumeFrom, relisted };
  const behind = relisted
    .map((resource) => `${resource} ${checkpoint.resourceVersions[resource]}`)
    .join(', ');
  const why = `the cluster has not reached the checkpointed versions of ${behind} (was its etcd restored from a backup?)`;
  logger.warn(`${why}; relisting ${relisted.join(', ')} instead of resuming there`, {
    cluster: { ...inputs.identity },
  });
  return { resumeFrom, why, relisted };
}

/**
 * Whether the cluster has reached version `rv` of `resource`: a LIST of one object not older than
 * it, which kube-apiserver answers 504 "Too large resource version" once its watch cache has waited
 * 3 s for it in vain (watch_cache.go `waitUntilFreshAndBlock`). The same check as client-go's
 * reflector, which relists from scratch when a LIST at its last version answers that
 * (reflector.go `isTooLargeResourceVersionError`).
 */
async function hasReached(kube: RelayKube, resource: TriggeringResource, rv: string): Promise<boolean> {
  const options = { notOlderThan: rv, limit: 1 };
  try {
    if (resource === 'nodes') await kube.listNodes(options);
    else if (resource === 'pods') await kube.listPods({ ...options, labelSelector: WATCHED_POD_SELECTOR });
    else await kube.listDaemonSets(options);
    return true;
  } catch (error) {
    if (error instanceof TooLargeResourceVersionError) return false;
    throw error;
  }
}
