/**
 * Catching a kept pod table up by a watch (docs/design.md, 15. The DaemonSet step: "A pod LIST is
 * caught up by a watch"): the changes since the table's version, as an informer would have applied
 * them, for a request whose answer is what changed rather than every pod. The kept node table is
 * caught up the same way (read-nodes.ts).
 */
import { GoneError } from '../../kube/errors/kube-api-errors.ts';
import type { KubePort, WatchEvent, WatchedObjects } from '../../kube/kube-port.ts';
import { isAtLeast } from '../../kube/resource-version.ts';
import { applyPodEvent, type KeptPods } from '../memory/kept-pod-lists.ts';

/** How long a catch-up may wait to reach the trigger's version before the step lists instead. */
export const POD_CATCH_UP_TIMEOUT_MS = 1_000;

/**
 * How long the watch must stay quiet, once the API server answered it and the trigger's version is
 * reached, before the catch-up ends: the server sends the changes it holds at once, so this takes
 * every change it had when it answered — what a LIST from its watch cache would have shown.
 */
export const POD_CATCH_UP_QUIET_MS = 5;

/** Where to catch up: the table's namespace and label selector. */
export interface PodSelection {
  readonly namespace: string;
  readonly labelSelector: string;
}

const quiet = Symbol('quiet');

/**
 * Applies to `table` the changes of its selection after its version, until it shows at least
 * `version` (the change behind the trigger) and the watch, once answered, falls quiet: so the table
 * also shows what happened after the trigger was sent, the deletes of an earlier step of the
 * DaemonSet in another process among them. Always one watch, even when the table is already that
 * new. True when it got there; false when the table's version is too old for the API server's watch
 * window (410 Gone) or the catch-up took longer than {@link POD_CATCH_UP_TIMEOUT_MS}: the table is
 * then only partly caught up and the caller lists instead.
 */
export async function catchUpPods(
  kube: Pick<KubePort, 'watch'>,
  selection: Readonly<PodSelection>,
  table: KeptPods,
  version: string,
): Promise<boolean> {
  return catchUpWatch(kube, 'pods', selection, table, version, (event) => applyPodEvent(table, event));
}

/**
 * The catch-up of {@link catchUpPods} for any watched resource: applies the changes of `selection`
 * after `from.resourceVersion` (which `apply` moves on) until it is at least `version` and the
 * watch, once answered, falls quiet. False on a 410 Gone or past {@link POD_CATCH_UP_TIMEOUT_MS}.
 */
export async function catchUpWatch<K extends 'pods' | 'nodes'>(
  kube: Pick<KubePort, 'watch'>,
  resource: K,
  selection: Readonly<Partial<PodSelection>>,
  from: { readonly resourceVersion: string },
  version: string,
  apply: (event: WatchEvent<WatchedObjects[K]>) => void,
): Promise<boolean> {
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), POD_CATCH_UP_TIMEOUT_MS);
  let answered: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const events = kube
    .watch(resource, {
      ...selection,
      resourceVersion: from.resourceVersion,
      signal: abort.signal,
      onOpen: () => answered(),
    })
    [Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<WatchEvent<WatchedObjects[K]>>> | undefined;
  let reached = isAtLeast(from.resourceVersion, version);
  try {
    for (;;) {
      pending = events.next();
      const next = reached
        ? await Promise.race([pending, opened.then(() => quietFor(POD_CATCH_UP_QUIET_MS))])
        : await pending;
      if (next === quiet) return true;
      if (next.done) return false;
      pending = undefined;
      apply(next.value);
      reached ||= isAtLeast(from.resourceVersion, version);
    }
  } catch (error) {
    if (error instanceof GoneError) return false;
    throw error;
  } finally {
    clearTimeout(deadline);
    abort.abort();
    // The read left waiting when the watch fell quiet ends with the abort.
    pending?.catch(() => undefined);
  }
}

function quietFor(ms: number): Promise<typeof quiet> {
  return new Promise((resolve) => setTimeout(() => resolve(quiet), ms));
}
