/**
 * What the pair and node steps create pods from: the DaemonSet's current revision, or — while a
 * halted rollout reverts (core/safe-rollout/revert.ts) — its stable revision, whose template comes
 * from its ControllerRevision (one small LIST by hash label, kept: a revision's data never changes).
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { type PodTarget, podTargetAmong, revertRevision } from '../../core/safe-rollout/revert.ts';
import { rolloutRecordOf } from '../../core/safe-rollout/rollout-record.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { Lru } from '../memory/lru.ts';
import { currentRevisionHashes } from './revision-hash.ts';

/** Stable revisions read, by DaemonSet uid and hash. */
const stableRevisions = new Lru<V1ControllerRevision[]>(256);

/**
 * The pod target of `ds` whose pods are planned at `hash`: the stable revision while its rollout
 * reverts (whether `hash` is the current revision's or, from a DaemonSet step's fan-out, already the
 * stable one's), else `ds` at `hash`.
 */
export async function podTarget(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  hash: string,
): Promise<PodTarget> {
  const record = rolloutRecordOf(ds);
  const stable = record === undefined ? undefined : revertRevision(ds, record.revision);
  if (record === undefined || stable === undefined || (hash !== record.revision && hash !== stable))
    return { ds: ds as DaemonSet, hash };
  const key = `${ds.metadata?.uid}/${stable}`;
  let revisions = stableRevisions.get(key);
  if (revisions === undefined) {
    const namespace = ds.metadata?.namespace ?? 'default';
    const labelSelector = `${CONTROLLER_REVISION_HASH_LABEL}=${stable}`;
    revisions = (
      await deps.ports.kube.listControllerRevisions(namespace, { labelSelector, allowStale: true })
    ).items;
    stableRevisions.set(key, revisions);
  }
  return podTargetAmong(ds, record.revision, revisions);
}

/**
 * {@link podTarget} of each DaemonSet of `daemonSets` at its current revision hash
 * (revision-hash.ts: cached, else one LIST per namespace).
 */
export async function podTargets(
  deps: ReconcileDeps,
  daemonSets: readonly DaemonSet[],
): Promise<{ daemonSets: DaemonSet[]; hashes: string[] }> {
  const hashes = await currentRevisionHashes(deps, daemonSets);
  const targets = await Promise.all(daemonSets.map((ds, i) => podTarget(deps, ds, hashes[i] ?? '')));
  return { daemonSets: targets.map((t) => t.ds), hashes: targets.map((t) => t.hash) };
}
