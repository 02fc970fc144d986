/**
 * `kubectl everynode rollout retry`: lifts the halt of a safe rollout (docs/design.md, 30. Rollouts
 * that stop themselves) by writing the request `everynode.dev/rollout-retry: <revision>/<haltedAt>`
 * (a merge patch of the annotations), which names the halt it lifts, so the controller takes it
 * once and a stale one is ignored. The messages follow kubectl's resume: `<resource>/<name>
 * retried`, and for a DaemonSet whose rollout of the current revision is not halted the error
 * `error: daemonsets.everynode.dev "NAME" is not halted` (its `is not paused`).
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import { ROLLOUT_RETRY_ANNOTATION, rolloutRecordOf } from '../core/safe-rollout/rollout-record.ts';
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, patchOrFail, type RolloutCommandContext } from './rollout-command-context.ts';
import { currentRevisionOf, isHalted } from './rollout-revision.ts';
import { resourceString } from './safe-rollout-words.ts';

/** The retry request for the halt of `ds`'s current revision, or undefined when it is not halted. */
async function retryRequest(
  context: Readonly<RolloutCommandContext>,
  ds: Readonly<KubeObject>,
): Promise<string | undefined> {
  const record = rolloutRecordOf(ds as unknown as DaemonSet);
  if (!isHalted(record)) return undefined;
  const current = await currentRevisionOf(context.api, ds);
  return current === record.revision ? `${record.revision}/${record.haltedAt}` : undefined;
}

/** Runs `rollout retry`; resolves with the errors to report. */
export async function rolloutRetry(context: Readonly<RolloutCommandContext>): Promise<unknown[]> {
  const { objects, errors } = await fetchDaemonSets(context);
  const { kind } = context.target;
  const failed: unknown[] = [];
  for (const ds of objects) {
    const name = ds.metadata?.name ?? '';
    try {
      const request = await retryRequest(context, ds);
      if (request === undefined) {
        // kubectl's words for a resource its resume cannot act on, `error:` included.
        failed.push(new KubectlError(`error: ${resourceString(kind)} ${JSON.stringify(name)} is not halted`));
        continue;
      }
      const patch = { metadata: { annotations: { [ROLLOUT_RETRY_ANNOTATION]: request } } };
      await patchOrFail(context, name, patch);
      context.stdout(`${printedName(kind, name)} retried\n`);
    } catch (error) {
      failed.push(error);
    }
  }
  return [...errors, ...failed];
}
