/**
 * `kubectl everynode rollout pause` and `resume`: everynode's paused extension
 * (docs/design.md, 18. Extensions beyond upstream) — `spec.updateStrategy.rollingUpdate.paused` on
 * an everynode.dev/v1 DaemonSet, the `everynode.dev/paused` annotation on an apps/v1 one, whose
 * schema has no such field. kubectl has no pause for DaemonSets; the messages are those of its
 * Deployment pause and resume (cmd/rollout/rollout_pause.go, rollout_resume.go): `paused`,
 * `resumed`, and `already paused` / `already resumed` when nothing changes.
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import { PAUSED_ANNOTATION, rolloutExtensionsOf } from '../core/extensions.ts';
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';

/**
 * The merge patch that makes `ds` paused (`paused` true) or not. Resuming removes every setting that
 * holds it paused — the field and the annotation — since the annotation takes over when the field
 * is gone.
 */
function pausePatch(
  ds: Readonly<KubeObject>,
  kind: RolloutCommandContext['target']['kind'],
  paused: boolean,
): unknown {
  if (kind === 'apps/v1')
    return { metadata: { annotations: { [PAUSED_ANNOTATION]: paused ? 'true' : null } } };
  if (paused) return { spec: { updateStrategy: { rollingUpdate: { paused: true } } } };
  const hasAnnotation = ds.metadata?.annotations?.[PAUSED_ANNOTATION] !== undefined;
  return {
    spec: { updateStrategy: { rollingUpdate: { paused: null } } },
    ...(hasAnnotation ? { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } } : {}),
  };
}

/** Runs `rollout pause` (`paused` true) or `rollout resume`; resolves with the errors to report. */
export async function rolloutPause(
  context: Readonly<RolloutCommandContext>,
  paused: boolean,
): Promise<unknown[]> {
  const { objects, errors } = await fetchDaemonSets(context);
  const { kind } = context.target;
  const failed: unknown[] = [];
  for (const ds of objects) {
    const name = ds.metadata?.name ?? '';
    if (rolloutExtensionsOf(ds as unknown as DaemonSet).paused === paused) {
      context.stdout(`${printedName(kind, name)} already ${paused ? 'paused' : 'resumed'}\n`);
      continue;
    }
    try {
      const patch = pausePatch(ds, kind, paused);
      await context.api.patchDaemonSet(kind, context.namespace, name, 'application/merge-patch+json', patch);
      context.stdout(`${printedName(kind, name)} ${paused ? 'paused' : 'resumed'}\n`);
    } catch (error) {
      failed.push(new KubectlError(`failed to patch: ${(error as Error).message}`, { cause: error }));
    }
  }
  return [...errors, ...failed];
}
