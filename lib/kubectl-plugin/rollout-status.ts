/**
 * `kubectl everynode rollout status` (kubectl cmd/rollout/rollout_status.go): prints the status of
 * each DaemonSet named, then — unless `--watch=false` — follows it by watch, printing the status
 * again on every change of the object, until the rollout is done, `--timeout` runs out (kubectl's
 * `timed out waiting for the condition`), or the object is deleted. `--revision` is checked and then
 * ignored, as kubectl ignores it for DaemonSets.
 */
import { daemonSetStatusMessage } from './daemon-set-status-message.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';

/** Status code of a watch ERROR event whose resourceVersion is too old (410 Gone). */
const GONE = 410;

const timedOut = () => new KubectlError('timed out waiting for the condition');

/**
 * Prints the status of one DaemonSet and follows it until done; resolves when the rollout is done
 * (or after one look with `watch` false); rejects with kubectl's errors.
 */
async function follow(
  context: Readonly<RolloutCommandContext>,
  first: Readonly<KubeObject>,
  watch: boolean,
  signal: AbortSignal,
): Promise<void> {
  const look = (object: Readonly<KubeObject>) => {
    const { message, done } = daemonSetStatusMessage(object);
    context.stdout(message);
    return done || !watch;
  };
  if (look(first)) return;
  const name = first.metadata?.name ?? '';
  const fieldSelector = `metadata.name=${name}`;
  let resourceVersion = first.metadata?.resourceVersion ?? '';
  while (!signal.aborted) {
    const events = context.api.watchDaemonSets(context.target.kind, context.namespace, {
      fieldSelector,
      resourceVersion,
      signal,
    });
    for await (const event of events) {
      const version = event.object.metadata?.resourceVersion;
      if (event.type === 'BOOKMARK') {
        resourceVersion = version ?? resourceVersion;
      } else if (event.type === 'ERROR') {
        if ((event.object as { code?: number }).code !== GONE) {
          throw new KubectlError(String((event.object as { message?: string }).message ?? 'watch error'));
        }
        // Too old to resume from: read the object again, as an informer relists.
        const current = await context.api.getDaemonSet(context.target.kind, context.namespace, name);
        resourceVersion = current.metadata?.resourceVersion ?? '';
        if (look(current)) return;
        break;
      } else if (event.type === 'DELETED') {
        throw new KubectlError('object has been deleted');
      } else {
        resourceVersion = version ?? resourceVersion;
        if (look(event.object)) return;
      }
    }
  }
  throw timedOut();
}

/** Runs `rollout status`; resolves with the errors to report (none: exit 0). */
export async function rolloutStatus(context: Readonly<RolloutCommandContext>): Promise<unknown[]> {
  const revision = context.flags.get('revision');
  if (typeof revision === 'number' && revision < 0) {
    throw new KubectlError(`revision must be a positive integer: ${revision}`);
  }
  const timeoutMs = context.flags.get('timeout');
  const watch = context.flags.get('watch') !== false;
  const deadline = new AbortController();
  const timer =
    typeof timeoutMs === 'number' && timeoutMs > 0
      ? setTimeout(() => deadline.abort(), timeoutMs)
      : undefined;
  try {
    const { objects, errors } = await fetchDaemonSets(context);
    const found: unknown[] = [];
    for (const object of objects) {
      try {
        if (deadline.signal.aborted) throw timedOut();
        await follow(context, object, watch, deadline.signal);
      } catch (error) {
        found.push(error);
      }
    }
    return [...found, ...errors];
  } finally {
    clearTimeout(timer);
  }
}
