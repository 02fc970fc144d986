/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`), as the API server applies it with
 * github.com/evanphx/json-patch `MergePatch` in
 * staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (jsonPatcher.applyJSPatch).
 */
import { PatchError } from './patch-error.ts';

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a patch value with `null` members removed from every object inside it (arrays keep
 * their `null` elements), as evanphx/json-patch `pruneNulls` does for values that replace.
 */
function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : pruned(item)));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== null) out[key] = pruned(member);
  }
  return out;
}

function mergeObjects(target: Readonly<JsonObject>, patch: Readonly<JsonObject>): JsonObject {
  const out: JsonObject = structuredClone(target) as JsonObject;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeObjects(current, value) : pruned(value);
  }
  return out;
}

/**
 * The document that results from applying merge patch `patch` to `original` (neither is modified):
 * objects merge member by member, `null` deletes a member, anything else (arrays included) replaces.
 * Throws a 400 `PatchError` when the patch is not a JSON object, as the API server refuses a
 * patch that would replace the whole object with a non-object.
 */
export function mergePatch(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) {
    throw new PatchError('BadRequest', 'applying merge patch: the patch is not a JSON object');
  }
  return mergeObjects(isObject(original) ? original : {}, patch);
}
