/**
 * `kubectl everynode rollout undo` (kubectl polymorphichelpers rollback.go DaemonSetRollbacker):
 * restores the pod template of a ControllerRevision — `--to-revision=N`, else the one before the
 * latest — with kubectl's messages. An apps/v1 DaemonSet gets the revision's data as it is, the
 * strategic merge patch kubectl sends; an everynode.dev/v1 DaemonSet, a custom resource that takes
 * no strategic merge patch, gets the same template by a JSON patch replacing spec.template, and the
 * revision's node-sizing rules in spec.nodeSizing.
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { revisionMatches } from '../core/controller-revision.ts';
import type { DaemonSet } from '../core/daemon-set.ts';
import { sizingOfRevisionData } from '../core/node-sizing/sizing-revision.ts';
import { daemonSetHistory, templateOfRevision } from './daemon-set-history.ts';
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';

const revisionNotFound = (revision: number) =>
  new KubectlError(`unable to find specified revision ${revision} in history`);

/** The revision to roll back to (rollback.go findHistory), or kubectl's error. */
function findHistory(history: readonly V1ControllerRevision[], toRevision: number): V1ControllerRevision {
  if (toRevision < 0) throw revisionNotFound(toRevision);
  if (toRevision === 0 && history.length <= 1) throw new KubectlError('no last revision to roll back to');
  const found =
    toRevision === 0 ? history[history.length - 2] : history.find((h) => h.revision === toRevision);
  if (found === undefined) throw revisionNotFound(toRevision);
  return found;
}

/**
 * The JSON patch operations that give an everynode.dev/v1 DaemonSet the revision's node-sizing
 * rules in `spec.nodeSizing`: set them, or remove the field when the revision had none.
 */
function sizingOps(ds: Readonly<KubeObject>, found: Readonly<V1ControllerRevision>): object[] {
  const sizing = sizingOfRevisionData(found.data);
  const present = (ds.spec as { nodeSizing?: unknown } | undefined)?.nodeSizing !== undefined;
  if (sizing !== undefined) return [{ op: 'add', path: '/spec/nodeSizing', value: sizing }];
  return present ? [{ op: 'remove', path: '/spec/nodeSizing' }] : [];
}

/** Rolls one DaemonSet back; resolves with the operation kubectl prints after its name. */
async function rollBack(
  context: Readonly<RolloutCommandContext>,
  ds: Readonly<KubeObject>,
  toRevision: number,
): Promise<string> {
  const found = findHistory(await daemonSetHistory(context.api, ds), toRevision);
  if (revisionMatches(ds as unknown as DaemonSet, found)) {
    return `skipped rollback (current template already matches revision ${toRevision})`;
  }
  const { kind } = context.target;
  const name = ds.metadata?.name ?? '';
  const patch =
    kind === 'apps/v1'
      ? { type: 'application/strategic-merge-patch+json' as const, body: JSON.stringify(found.data) }
      : {
          type: 'application/json-patch+json' as const,
          body: [
            { op: 'replace', path: '/spec/template', value: templateOfRevision(ds, found) },
            ...sizingOps(ds, found),
          ],
        };
  try {
    await context.api.patchDaemonSet(kind, context.namespace, name, patch.type, patch.body);
  } catch (error) {
    throw new KubectlError(`failed restoring revision ${toRevision}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return 'rolled back';
}

/** Runs `rollout undo`; resolves with the errors to report. */
export async function rolloutUndo(context: Readonly<RolloutCommandContext>): Promise<unknown[]> {
  const flag = context.flags.get('to-revision');
  const toRevision = typeof flag === 'number' ? flag : 0;
  const { objects, errors } = await fetchDaemonSets(context);
  const failed: unknown[] = [];
  for (const ds of objects) {
    try {
      const operation = await rollBack(context, ds, toRevision);
      context.stdout(`${printedName(context.target.kind, ds.metadata?.name ?? '')} ${operation}\n`);
    } catch (error) {
      failed.push(error);
    }
  }
  return [...errors, ...failed];
}
