/**
 * The current revision hash of a DaemonSet for the steps that do not run the revision step
 * themselves (pair without hints, node).
 */
import type { DaemonSet } from '../../core/daemon-set.ts';
import { planRevisions } from '../../core/revision-history.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';

/**
 * The controller-revision-hash new pods of `ds` get: from the process cache (keyed by uid,
 * generation and collisionCount, so it survives status writes), else from one LIST of the
 * namespace's ControllerRevisions planned as the DaemonSet step would (the matching revision's
 * hash, or the hash of the revision the step will create). The LIST may be served from the watch
 * cache: a revision missing from it yields the hash the step computes for it anyway.
 */
export async function currentRevisionHash(deps: ReconcileDeps, ds: Readonly<DaemonSet>): Promise<string> {
  const cached = deps.memory.objects.revisionHash(ds);
  if (cached !== undefined) return cached;
  const namespace = ds.metadata?.namespace ?? 'default';
  const revisions = await deps.ports.kube.listControllerRevisions(namespace, { allowStale: true });
  const hash = planRevisions(ds, revisions.items, []).currentHash;
  deps.memory.objects.putRevisionHash(ds, hash);
  return hash;
}

/**
 * The current revision hash of each of `daemonSets` (in order), as {@link currentRevisionHash} but
 * with at most one LIST per namespace for those not cached.
 */
export async function currentRevisionHashes(
  deps: ReconcileDeps,
  daemonSets: readonly Readonly<DaemonSet>[],
): Promise<string[]> {
  const missing = new Set(
    daemonSets
      .filter((ds) => deps.memory.objects.revisionHash(ds) === undefined)
      .map((ds) => ds.metadata?.namespace ?? 'default'),
  );
  await Promise.all(
    [...missing].map(async (namespace) => {
      const revisions = await deps.ports.kube.listControllerRevisions(namespace, { allowStale: true });
      for (const ds of daemonSets) {
        if (
          (ds.metadata?.namespace ?? 'default') !== namespace ||
          deps.memory.objects.revisionHash(ds) !== undefined
        )
          continue;
        deps.memory.objects.putRevisionHash(ds, planRevisions(ds, revisions.items, []).currentHash);
      }
    }),
  );
  return Promise.all(daemonSets.map((ds) => currentRevisionHash(deps, ds)));
}
