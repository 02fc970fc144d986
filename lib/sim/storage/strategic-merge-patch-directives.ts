/**
 * Directive handling of strategic merge patch, ported from
 * staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go: `$patch` in maps
 * (handleDirectiveInMergeMap), `$retainKeys` (applyRetainKeysDirective), directive prefixes
 * (extractKey), and the clean-up of values copied from the patch (discardNullValuesFromPatch,
 * removeDirectives).
 */
import { PatchError } from './patch-error.ts';
import { isJsonMap, type JsonMap } from './strategic-merge-patch-order.ts';

/** Prefix of the directive that orders a list: `$setElementOrder/<field>`. */
export const setElementOrderPrefix = '$setElementOrder/';
/** Prefix of the directive that deletes from a list of scalars: `$deleteFromPrimitiveList/<field>`. */
export const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList/';

/** `$patch` in a map: replace → the patch itself, delete → an empty map (handleDirectiveInMergeMap). */
export function mapDirective(patch: JsonMap): JsonMap {
  const directive = patch.$patch;
  if (directive === 'replace') {
    delete patch.$patch;
    return patch;
  }
  if (directive === 'delete') return {};
  throw new PatchError(
    'InternalError',
    `unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`,
  );
}

/** The field name after a directive prefix; 400 when the prefix has no field (patch.go extractKey). */
export function directiveField(key: string, prefix: string): string {
  const field = key.slice(prefix.length);
  if (field === '') {
    const what = prefix === setElementOrderPrefix ? 'setElementOrder list' : 'primitive list';
    throw new PatchError('BadRequest', `invalid patch format of ${what}`);
  }
  return field;
}

/** `value` with `null` members removed from every map inside it (patch.go discardNullValuesFromPatch). */
export function discardNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(discardNulls);
  if (!isJsonMap(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, member]) => member !== null)
      .map(([key, member]) => [key, discardNulls(member)]),
  );
}

/** Stores `value` with its directives removed; a value that is itself `$patch: delete` is dropped. */
export function setWithoutDirectives(target: JsonMap, key: string, value: unknown): void {
  const cleaned = withoutDirectives(value);
  if (cleaned === undefined) delete target[key];
  else target[key] = cleaned;
}

function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDirectives).filter((item) => item !== undefined);
  if (!isJsonMap(value)) return value;
  if (value.$patch === 'delete') return undefined;
  const out: JsonMap = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith(deleteFromPrimitiveListPrefix)) continue;
    out[key] = withoutDirectives(member);
  }
  return out;
}

/** `$retainKeys`: drop original keys not listed; every patched key must be listed (applyRetainKeysDirective). */
export function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!('$retainKeys' in patch)) return;
  const retain = patch.$retainKeys;
  delete patch.$retainKeys;
  if (!Array.isArray(retain)) throw new PatchError('BadRequest', 'invalid patch format of retainKeys');
  for (const [key, value] of Object.entries(patch)) {
    if (
      value === null ||
      key.startsWith('$setElementOrder/') ||
      key.startsWith(deleteFromPrimitiveListPrefix)
    )
      continue;
    if (!retain.includes(key)) throw new PatchError('BadRequest', 'invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) if (!retain.includes(key)) delete original[key];
}
