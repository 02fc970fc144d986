/**
 * Element order of merged lists in strategic merge patch: the `$setElementOrder` directive and the
 * order rules of staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
 * (normalizeElementOrder, normalizeSliceOrder, mergeSortedSlice, partition*ByPresentInList).
 */
import { PatchError } from './patch-error.ts';

/** A JSON object. */
export type JsonMap = { [key: string]: unknown };

/** True for a JSON object (not an array, not null). */
export function isJsonMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value a list item is identified by: its merge key for maps, itself for scalars. */
function identity(item: unknown, mergeKey: string | undefined): unknown {
  if (mergeKey === undefined) return item;
  return isJsonMap(item) ? item[mergeKey] : undefined;
}

/** Index of `item` in `list` by identity, or -1 (patch.go index). */
export function indexIn(list: readonly unknown[], item: unknown, mergeKey: string | undefined): number {
  const wanted = identity(item, mergeKey);
  return list.findIndex((candidate) => identity(candidate, mergeKey) === wanted);
}

/** Items of `merged` present in `by` (first) and the others (second), in `merged` order. */
export function partitionByPresence(
  merged: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string | undefined,
): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of merged) (indexIn(by, item, mergeKey) >= 0 ? present : absent).push(item);
  return [present, absent];
}

/** The 500 error upstream returns for a list element without the declared merge key. */
export function noMergeKey(item: unknown, mergeKey: string): PatchError {
  return new PatchError(
    'InternalError',
    `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`,
  );
}

function requireMergeKeys(mergeKey: string, ...lists: readonly (readonly unknown[])[]): void {
  for (const list of lists) {
    for (const item of list) if (!isJsonMap(item) || !(mergeKey in item)) throw noMergeKey(item, mergeKey);
  }
}

/** `toSort` stably ordered by `order`; for maps, `$patch: delete` items moved to the end. */
function normalizeSliceOrder(
  toSort: readonly unknown[],
  order: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  let kept = [...toSort];
  let deletes: unknown[] = [];
  if (mergeKey !== undefined) {
    requireMergeKeys(mergeKey, toSort, order);
    deletes = kept.filter((item) => isJsonMap(item) && item.$patch === 'delete');
    kept = kept.filter((item) => !(isJsonMap(item) && item.$patch === 'delete'));
  }
  const ranked = kept.map((item, position) => ({ item, position, rank: indexIn(order, item, mergeKey) }));
  ranked.sort((a, b) => (a.rank >= 0 && b.rank >= 0 ? a.rank - b.rank : a.position - b.position));
  return [...ranked.map((entry) => entry.item), ...deletes];
}

/**
 * The merged list: patch items in `patchOrder`, server-only items in `serverOrder`, interleaved so a
 * server-only item goes before the first patch item it precedes in the live list.
 */
export function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * Checks that the patch list's items appear in the same relative order as in the
 * `$setElementOrder` list (patch.go validatePatchWithSetOrderList); throws otherwise.
 */
export function validateSetElementOrder(
  patchList: readonly unknown[],
  setOrder: readonly unknown[],
  mergeKey: string | undefined,
): void {
  const items = patchList.filter((item) => !(isJsonMap(item) && '$patch' in item));
  let p = 0;
  for (let s = 0; s < setOrder.length && p < items.length; s++) {
    if (identity(items[p], mergeKey) === identity(setOrder[s], mergeKey)) p++;
  }
  if (p < items.length) {
    throw new PatchError(
      'InternalError',
      `The order in patch list:\n${JSON.stringify(patchList)}\n doesn't match $setElementOrder list:\n${JSON.stringify(setOrder)}\n`,
    );
  }
}
