/**
 * The pods matching a DaemonSet's selector for its step (docs/design.md, 15. The DaemonSet step: "A
 * pod LIST is caught up by a watch"): the process's kept table caught up to the trigger's pod
 * version when there is one, else a LIST from the watch cache, kept when it is large enough to be
 * worth catching up next time.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { labelSelectorQuery } from '../../core/label-selector.ts';
import { TooManyRequestsError } from '../../kube/errors/kube-api-errors.ts';
import type { ListResult } from '../../kube/kube-port.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { type KeptPods, keptPodsOf } from '../memory/kept-pod-lists.ts';
import { catchUpPods, type PodSelection } from './catch-up-pods.ts';

/**
 * How long a kept pod table may be caught up after the LIST it started from: at least one LIST of
 * a DaemonSet's pods every two minutes while its steps run, besides the recounts (as for nodes).
 */
export const POD_LIST_REUSE_MS = 120_000;

/**
 * {@link catchUpPods} of DaemonSet `uid`'s `table`. A watch the API server refused with 429 applied
 * nothing, so the table is put back for the step that runs after the `Retry-After`: else that step
 * would list every pod, just when the server asked for fewer requests.
 */
async function catchUpKept(
  deps: DepsPart<'kube', 'keptPods'>,
  uid: string,
  selection: Readonly<PodSelection>,
  table: KeptPods,
  podsVersion: string,
): Promise<boolean> {
  try {
    return await catchUpPods(
      deps.ports.kube,
      selection,
      table,
      deps.memory.keptPods.catchUpTarget(uid, podsVersion),
    );
  } catch (error) {
    if (error instanceof TooManyRequestsError) deps.memory.keptPods.put(uid, table);
    throw error;
  }
}

/** The pods and whether they came from a kept table rather than a LIST made for this step. */
export type DaemonSetPods = ListResult<V1Pod> & { readonly kept: boolean };

/** The namespace, selector and kept-table key `ds`'s pods are read with. */
function selectionOf(ds: Readonly<DaemonSet>) {
  const namespace = ds.metadata?.namespace ?? 'default';
  const labelSelector = labelSelectorQuery(ds.spec?.selector);
  return { namespace, labelSelector, uid: ds.metadata?.uid ?? '', query: `${namespace}/${labelSelector}` };
}

/** True when `table` is young enough at `now` to be caught up rather than listed again. */
function isYoung(table: Readonly<KeptPods>, now: number): boolean {
  return now - table.listedAt <= POD_LIST_REUSE_MS;
}

/** The version of `ds`'s kept pod table, if the process keeps one young enough to be caught up. */
export function keptPodsVersion(
  deps: DepsPart<never, 'keptPods'>,
  ds: Readonly<DaemonSet>,
): string | undefined {
  const { uid, query } = selectionOf(ds);
  const table = deps.memory.keptPods.peek(uid, query);
  return table !== undefined && isYoung(table, deps.clock().getTime()) ? table.resourceVersion : undefined;
}

/**
 * True when {@link readDaemonSetPods} of `ds` with `podsVersion` will try to catch up a kept table
 * rather than list (it still lists when the catch-up fails).
 */
export function willCatchUp(
  deps: DepsPart<never, 'keptPods'>,
  ds: Readonly<DaemonSet>,
  podsVersion: string | undefined,
): boolean {
  const { uid, query } = selectionOf(ds);
  const table = deps.memory.keptPods.peek(uid, query);
  return podsVersion !== undefined && table !== undefined && isYoung(table, deps.clock().getTime());
}

/**
 * The pods matching `ds`'s selector: with `podsVersion` (the newest change of the DaemonSet's pods
 * the trigger knew of), the kept table caught up to at least that version, if the process holds
 * one younger than {@link POD_LIST_REUSE_MS}; otherwise, or when the catch-up fails, a LIST.
 */
export async function readDaemonSetPods(
  deps: DepsPart<'kube', 'keptPods'>,
  ds: Readonly<DaemonSet>,
  podsVersion: string | undefined,
): Promise<DaemonSetPods> {
  const { namespace, labelSelector, uid, query } = selectionOf(ds);
  const startedAt = deps.clock().getTime();
  const table = deps.memory.keptPods.take(uid, query);
  if (
    podsVersion !== undefined &&
    table !== undefined &&
    isYoung(table, startedAt) &&
    (await catchUpKept(deps, uid, { namespace, labelSelector }, table, podsVersion))
  ) {
    deps.memory.keptPods.put(uid, table);
    return { items: keptPodsOf(table), resourceVersion: table.resourceVersion, kept: true };
  }
  const list = await deps.ports.kube.listPods({ namespace, labelSelector, allowStale: true });
  if (deps.memory.keptPods.worthKeeping(list.items.length)) {
    const pods = new Map(list.items.map((pod) => [pod.metadata?.uid ?? '', pod]));
    const deleting = new Map<string, Date>();
    deps.memory.keptPods.put(uid, {
      query,
      pods,
      resourceVersion: list.resourceVersion,
      listedAt: startedAt,
      deleting,
    });
  }
  return { ...list, kept: false };
}
