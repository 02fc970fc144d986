/**
 * `kubectl everynode rollout history` (kubectl cmd/rollout/rollout_history.go with
 * DaemonSetHistoryViewer): for each DaemonSet named, its name line, then the REVISION /
 * CHANGE-CAUSE table of its ControllerRevisions (the change cause from each revision's
 * `kubernetes.io/change-cause` annotation, `<none>` without), or with `--revision=N` that
 * revision's pod template described.
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { daemonSetHistory, templateOfRevision } from './daemon-set-history.ts';
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { describePodTemplate } from './pod-template-description.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';

/** The annotation kubectl reads a revision's change cause from. */
const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';

/**
 * Two columns as kubectl's tabbedString aligns them (text/tabwriter, padding 2): the first padded
 * to its widest cell plus two spaces.
 */
function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([first]) => [...first].length));
  return rows.map(([first, second]) => `${first.padEnd(width + 2)}${second}\n`).join('');
}

/** What kubectl's history viewer returns for `ds` (the text after the name line). */
function viewHistory(
  ds: Readonly<KubeObject>,
  history: readonly V1ControllerRevision[],
  revision: number,
): string {
  const byRevision = new Map(history.map((item) => [item.revision, item]));
  if (byRevision.size === 0) return 'No rollout history found.';
  if (revision > 0) {
    const found = byRevision.get(revision);
    if (found === undefined) throw new KubectlError('unable to find the specified revision');
    return describePodTemplate(templateOfRevision(ds, found));
  }
  const revisions = [...byRevision.keys()].sort((a, b) => a - b);
  return table([
    ['REVISION', 'CHANGE-CAUSE'],
    ...revisions.map((r): [string, string] => [
      String(r),
      byRevision.get(r)?.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION] || '<none>',
    ]),
  ]);
}

/** Runs `rollout history`; resolves with the errors to report. */
export async function rolloutHistory(context: Readonly<RolloutCommandContext>): Promise<unknown[]> {
  const revisionFlag = context.flags.get('revision');
  const revision = typeof revisionFlag === 'number' ? revisionFlag : 0;
  if (revision < 0) throw new KubectlError(`revision must be a positive integer: ${revision}`);
  const { objects, errors } = await fetchDaemonSets(context);
  const failed: unknown[] = [];
  for (const ds of objects) {
    try {
      const text = viewHistory(ds, await daemonSetHistory(context.api, ds), revision);
      const withRevision = revision > 0 ? `with revision #${revision}` : '';
      context.stdout(
        `${printedName(context.target.kind, ds.metadata?.name ?? '')} ${withRevision}\n${text}\n`,
      );
    } catch (error) {
      failed.push(error);
    }
  }
  return [...errors, ...failed];
}
