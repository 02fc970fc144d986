/**
 * Which revision a DaemonSet's template is, named as the controller names it (the
 * controller-revision-hash its new pods carry), so the plugin can tell whether the rollout record
 * the DaemonSet carries is about its current template (docs/design.md, 30. Rollouts that stop
 * themselves): a record of an older template is stale, and a request naming it is ignored.
 */
import { revisionHashFor, revisionHashOf, revisionMatches } from '../core/controller-revision.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import type { RolloutRecord } from '../core/safe-rollout/rollout-record.ts';
import { daemonSetHistory } from './daemon-set-history.ts';
import type { KubeObject, PluginApi } from './plugin-api.ts';

/**
 * The hash of the DaemonSet's template with its collisionCount and node-sizing rules (upstream
 * snapshot's name): the revision of a template no ControllerRevision held before, read from the
 * object alone.
 */
export function templateRevisionOf(ds: Readonly<KubeObject>): string {
  const daemonSet = ds as unknown as DaemonSet;
  return revisionHashFor(daemonSet, daemonSet.status?.collisionCount);
}

/**
 * The current revision's hash: that of the newest ControllerRevision the DaemonSet controls that
 * holds its template (a rollback to an old template reuses that revision's hash), else
 * {@link templateRevisionOf}. One LIST of the namespace's ControllerRevisions.
 */
export async function currentRevisionOf(api: PluginApi, ds: Readonly<KubeObject>): Promise<string> {
  const history = await daemonSetHistory(api, ds);
  const daemonSet = ds as unknown as DaemonSet;
  const holding = history.filter((revision) => revisionMatches(daemonSet, revision)).at(-1);
  const hash = holding === undefined ? '' : revisionHashOf(holding);
  return hash === '' ? templateRevisionOf(ds) : hash;
}

/**
 * True when `record` is of a rollout that halted: Halted, or Reverting to its stable revision after
 * the halt (`onFailure: Revert`); the controller takes a retry of either.
 */
export function isHalted(
  record: Readonly<RolloutRecord> | undefined,
): record is Readonly<RolloutRecord> & { readonly haltedAt: string } {
  return record?.haltedAt !== undefined && (record.phase === 'Halted' || record.phase === 'Reverting');
}
