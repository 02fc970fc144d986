/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as the API server applies it:
 * a port of the apply half of staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
 * (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls), with patch metadata
 * (merge keys, strategies) from the same type table that /openapi/v3 publishes.
 */
import { isDeepStrictEqual } from 'node:util';
import { builtinRootType, type FieldSpec, type TypeSpec, typeSpec } from '../schema/openapi-types.ts';
import type { ResourceKey } from '../schema/resources.ts';
import { PatchError } from './patch-error.ts';
import {
  applyRetainKeys,
  deleteFromPrimitiveListPrefix,
  directiveField,
  discardNulls,
  mapDirective,
  setElementOrderPrefix,
  setWithoutDirectives,
} from './strategic-merge-patch-directives.ts';
import {
  isJsonMap,
  type JsonMap,
  noMergeKey,
  normalizeElementOrder,
  partitionByPresence,
  validateSetElementOrder,
} from './strategic-merge-patch-order.ts';

/** The resource whose schema drives the merge (its storage key). */
export type PatchKind = ResourceKey;

/** Metadata of one field: the schema of its value (or list items) and its strategy and merge key. */
interface FieldMeta {
  readonly schema: TypeSpec | undefined;
  readonly strategy: string | undefined;
  readonly mergeKey: string | undefined;
}

/**
 * Strategic merge patch metadata of `key` in `schema`. Fields the table does not know get none
 * (replace lists, merge maps), as the stored object never holds fields its type lacks.
 */
function fieldMeta(schema: TypeSpec | undefined, key: string): FieldMeta {
  const field: FieldSpec | undefined = schema?.fields.get(key);
  if (!field) return { schema: undefined, strategy: undefined, mergeKey: undefined };
  let type = field.type;
  while (type.kind === 'array' || type.kind === 'map')
    type = type.kind === 'array' ? type.items : type.values;
  const strategies = (field.patchStrategy ?? '').split(',').filter((s) => s && s !== 'retainKeys');
  return {
    schema: type.kind === 'ref' ? typeSpec(type.name) : undefined,
    strategy: strategies[0],
    mergeKey: field.patchMergeKey,
  };
}

/** True when the server accepts strategic merge patches for `kind`; custom resources answer 415. */
export function supportsStrategicMergePatch(kind: PatchKind): boolean {
  return builtinRootType(kind) !== undefined;
}

/**
 * The object that results from applying strategic merge patch `patch` to `original` for a
 * resource of `kind` (neither argument is modified). Honours merge keys and strategies,
 * `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>`. Throws a `PatchError` with the real server's status: 415 for custom
 * resources, 400 for a malformed patch or directive, 422 for lists of lists, 500 otherwise.
 */
export function strategicMergePatch(original: unknown, patch: unknown, kind: PatchKind): unknown {
  const root = builtinRootType(kind);
  if (root === undefined) {
    throw new PatchError(
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  }
  if (!isJsonMap(patch) || !isJsonMap(original)) throw new PatchError('BadRequest', 'invalid JSON document');
  return mergeMap(structuredClone(original), structuredClone(patch), typeSpec(root));
}

/** Merges `patch` into `original` (both owned copies, mutated), patch.go mergeMap. */
function mergeMap(original: JsonMap, patch: JsonMap, schema: TypeSpec | undefined): JsonMap {
  if ('$patch' in patch) return mapDirective(patch);
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);
  for (const [patchKey, patchValue] of Object.entries(patch)) {
    const isDeleteList = patchKey.startsWith(deleteFromPrimitiveListPrefix);
    const key = isDeleteList ? directiveField(patchKey, deleteFromPrimitiveListPrefix) : patchKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    if (current === undefined || kindOf(current) !== kindOf(patchValue)) {
      if (!isDeleteList) setWithoutDirectives(original, key, discardNulls(patchValue));
      continue;
    }
    const meta = fieldMeta(schema, key);
    if (isJsonMap(current) && isJsonMap(patchValue)) {
      original[key] = meta.strategy === 'replace' ? patchValue : mergeMap(current, patchValue, meta.schema);
    } else if (Array.isArray(current) && Array.isArray(patchValue)) {
      original[key] =
        meta.strategy === 'merge' ? mergeSlice(current, patchValue, meta, isDeleteList) : patchValue;
    } else {
      setWithoutDirectives(original, key, patchValue);
    }
  }
  return original;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

/** `$setElementOrder/<field>`: merge that list and order it as listed (patch.go mergePatchIntoOriginal). */
function applySetElementOrder(original: JsonMap, patch: JsonMap, schema: TypeSpec | undefined): void {
  for (const [patchKey, order] of Object.entries(patch)) {
    if (!patchKey.startsWith(setElementOrderPrefix)) continue;
    delete patch[patchKey];
    const key = directiveField(patchKey, setElementOrderPrefix);
    if (!Array.isArray(order))
      throw new PatchError('BadRequest', 'invalid patch format of setElementOrder list');
    const current = listAt(original, key);
    const patchList = listAt(patch, key);
    if (current === undefined && patchList === undefined) continue;
    const meta = fieldMeta(schema, key);
    validateSetElementOrder(patchList ?? [], order, meta.mergeKey);
    let merged = current ?? patchList ?? [];
    if (current !== undefined && patchList !== undefined) {
      merged = meta.strategy === 'merge' ? mergeSlice(current, patchList, meta, false) : patchList;
    }
    const [inOrder, serverOnly] = partitionByPresence(merged, order, meta.mergeKey);
    original[key] = normalizeElementOrder(inOrder, serverOnly, order, current ?? [], meta.mergeKey);
    delete patch[key];
  }
}

function listAt(map: JsonMap, key: string): unknown[] | undefined {
  const value = map[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw new PatchError('InternalError', `expected a list at ${key}, got ${kindOf(value)}`);
  return value;
}

/** Merges two lists with the merge strategy (patch.go mergeSlice). */
function mergeSlice(
  original: unknown[],
  patch: unknown[],
  meta: FieldMeta,
  isDeleteList: boolean,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const elementKind = sliceElementKind(original, patch);
  if (elementKind !== 'object') {
    if (isDeleteList) return original.filter((item) => !patch.includes(item));
    const merged = dedupe([...original, ...patch]);
    const [inPatch, serverOnly] = partitionByPresence(merged, patch, undefined);
    return normalizeElementOrder(inPatch, serverOnly, patch, original, undefined);
  }
  const mergeKey = meta.mergeKey;
  if (mergeKey === undefined)
    throw new PatchError('InternalError', 'cannot merge lists without merge key for type map');
  const special = applySpecialElements(original, patch, mergeKey);
  const merged = mergeByKey(special.original, special.patch, mergeKey, meta.schema);
  const [inPatch, serverOnly] = partitionByPresence(merged, special.patch, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, special.patch, special.original, mergeKey);
}

/** The common kind of the elements of both lists; lists of lists are 422 (sliceElementType). */
function sliceElementKind(...lists: readonly unknown[][]): string {
  const kinds = new Set(lists.flat().map(kindOf));
  if (kinds.has('array')) throw new PatchError('Invalid', 'lists of lists are not supported');
  if (kinds.size !== 1)
    throw new PatchError('InternalError', `list element types are not identical: ${JSON.stringify(lists)}`);
  return [...kinds][0] ?? 'null';
}

function dedupe(items: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const item of items) if (!out.some((seen) => isDeepStrictEqual(seen, item))) out.push(item);
  return out;
}

/** Applies `$patch: delete|replace` elements of a list of maps (mergeSliceWithSpecialElements). */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string) {
  let kept = original;
  const plain: unknown[] = [];
  let replace = false;
  for (const item of patch) {
    const element = item as JsonMap;
    const directive = element.$patch;
    if (directive === undefined) plain.push(item);
    else if (directive === 'delete') {
      if (!(mergeKey in element)) throw noMergeKey(element, mergeKey);
      kept = kept.filter((candidate) => !(isJsonMap(candidate) && candidate[mergeKey] === element[mergeKey]));
    } else if (directive === 'replace') replace = true;
    else if (directive === 'merge')
      throw new PatchError('InternalError', 'merging lists cannot yet be specified in the patch');
    else
      throw new PatchError(
        'InternalError',
        `unknown patch type: ${String(directive)} in map: ${JSON.stringify(element)}`,
      );
  }
  return replace ? { original: plain, patch: [] as unknown[] } : { original: kept, patch: plain };
}

/** Merges patch maps into the original maps with the same merge key value, appending the rest. */
function mergeByKey(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  schema: TypeSpec | undefined,
): unknown[] {
  const merged = [...original];
  for (const item of patch) {
    const element = item as JsonMap;
    if (!(mergeKey in element)) throw noMergeKey(element, mergeKey);
    const at = merged.findIndex(
      (candidate) => isJsonMap(candidate) && candidate[mergeKey] === element[mergeKey],
    );
    const found = merged[at];
    if (at >= 0 && isJsonMap(found)) merged[at] = mergeMap(found, element, schema);
    else merged.push(item);
  }
  return merged;
}
