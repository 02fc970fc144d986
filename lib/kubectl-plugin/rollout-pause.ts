/**
 * `kubectl everynode rollout pause` and `resume`: everynode's paused extension
 * (docs/design.md, 18. Extensions beyond upstream) — `spec.updateStrategy.rollingUpdate.paused` on
 * an everynode.dev/v1 DaemonSet, the `everynode.dev/paused` annotation on an apps/v1 one, whose
 * schema has no such field. kubectl has no pause for DaemonSets; the messages are those of its
 * Deployment pause and resume (cmd/rollout/rollout_pause.go, rollout_resume.go): `paused`,
 * `resumed`, and `already paused` / `already resumed` when nothing changes.
 *
 * `resume` also ends the pause step a safe rollout holds (docs/design.md, 30. Rollouts that stop
 * themselves): when the DaemonSet's rollout record is of its current revision and Paused at a
 * `pause` step, the same merge patch writes the request `everynode.dev/rollout-resume:
 * <revision>/<step>`, which the controller takes once.
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import { PAUSED_ANNOTATION, rolloutExtensionsOf } from '../core/extensions.ts';
import { ROLLOUT_RESUME_ANNOTATION, rolloutRecordOf } from '../core/safe-rollout/rollout-record.ts';
import { safeRolloutOf } from '../core/safe-rollout/rollout-spec.ts';
import { printedName } from './daemon-set-target.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, patchOrFail, type RolloutCommandContext } from './rollout-command-context.ts';
import { currentRevisionOf } from './rollout-revision.ts';

/**
 * The merge patch that makes `ds` paused (`paused` true) or not, with `annotations` set besides.
 * Resuming removes every setting that holds it paused — the field and the annotation — since the
 * annotation takes over when the field is gone.
 */
function pausePatch(
  ds: Readonly<KubeObject>,
  kind: RolloutCommandContext['target']['kind'],
  paused: boolean,
  annotations: Readonly<Record<string, string>> = {},
): unknown {
  if (kind === 'apps/v1')
    return { metadata: { annotations: { ...annotations, [PAUSED_ANNOTATION]: paused ? 'true' : null } } };
  const unpause = !paused && ds.metadata?.annotations?.[PAUSED_ANNOTATION] !== undefined;
  const changed = { ...annotations, ...(unpause ? { [PAUSED_ANNOTATION]: null } : {}) };
  return {
    spec: { updateStrategy: { rollingUpdate: { paused: paused ? true : null } } },
    ...(Object.keys(changed).length > 0 ? { metadata: { annotations: changed } } : {}),
  };
}

/**
 * The resume request `<revision>/<step>` for the pause step the rollout of `ds` holds, or undefined
 * when none holds (no record, a stale one, a step that moves nodes) or the request is written
 * already. Lists the ControllerRevisions only when the record is Paused.
 */
async function pauseStepRequest(
  context: Readonly<RolloutCommandContext>,
  ds: Readonly<KubeObject>,
): Promise<string | undefined> {
  const record = rolloutRecordOf(ds as unknown as DaemonSet);
  if (record?.phase !== 'Paused' || record.step === undefined) return undefined;
  const step = safeRolloutOf(ds as unknown as DaemonSet).steps?.[record.step];
  if (step === undefined || !('pause' in step)) return undefined;
  const request = `${record.revision}/${record.step}`;
  if (ds.metadata?.annotations?.[ROLLOUT_RESUME_ANNOTATION] === request) return undefined;
  return (await currentRevisionOf(context.api, ds)) === record.revision ? request : undefined;
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
    try {
      const request = paused ? undefined : await pauseStepRequest(context, ds);
      const specChanges = rolloutExtensionsOf(ds as unknown as DaemonSet).paused !== paused;
      if (!specChanges && request === undefined) {
        context.stdout(`${printedName(kind, name)} already ${paused ? 'paused' : 'resumed'}\n`);
        continue;
      }
      const annotations: Record<string, string> =
        request === undefined ? {} : { [ROLLOUT_RESUME_ANNOTATION]: request };
      const patch = specChanges ? pausePatch(ds, kind, paused, annotations) : { metadata: { annotations } };
      await patchOrFail(context, name, patch);
      context.stdout(`${printedName(kind, name)} ${paused ? 'paused' : 'resumed'}\n`);
    } catch (error) {
      failed.push(error);
    }
  }
  return [...errors, ...failed];
}
