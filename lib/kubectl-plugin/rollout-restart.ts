/**
 * `kubectl everynode rollout restart` (kubectl cmd/rollout/rollout_restart.go with
 * objectrestarter.go): stamps the pod template with `kubectl.kubernetes.io/restartedAt` (the time
 * in RFC 3339, local time as Go formats it), which changes the template, so the controller rolls
 * every pod within the DaemonSet's update budget — as for any template change.
 */
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';

/** The annotation kubectl rollout restart sets on the pod template. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

/** `date` as Go's time.Format(time.RFC3339) in the local zone: `2026-01-02T15:04:05+01:00` or `…Z`. */
export function rfc3339Local(date: Date): string {
  const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const zone =
    offset === 0 ? 'Z' : `${offset > 0 ? '+' : '-'}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${zone}`
  );
}

/** Runs `rollout restart`; resolves with the errors to report. */
export async function rolloutRestart(
  context: Readonly<RolloutCommandContext>,
  now = new Date(),
): Promise<unknown[]> {
  const { objects, errors } = await fetchDaemonSets(context);
  const { kind } = context.target;
  const patch = {
    spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: rfc3339Local(now) } } } },
  };
  const type = kind === 'apps/v1' ? 'application/strategic-merge-patch+json' : 'application/merge-patch+json';
  const failed: unknown[] = [];
  for (const ds of objects) {
    const name = ds.metadata?.name ?? '';
    try {
      await context.api.patchDaemonSet(kind, context.namespace, name, type, patch);
      context.stdout(`${printedName(kind, name)} restarted\n`);
    } catch (error) {
      failed.push(new KubectlError(`failed to patch: ${(error as Error).message}`, { cause: error }));
    }
  }
  return [...errors, ...failed];
}
