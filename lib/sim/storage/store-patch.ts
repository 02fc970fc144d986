/**
 * PATCH as staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go applies it: the patch is
 * applied to the stored object, and the result goes through the same rules as an update
 * (status-only for /status, validation, optimistic concurrency when the patch names a
 * resourceVersion).
 */
import { SimApiError } from '../schema/api-error.ts';
import { type ResourceKey, resourceByKey } from '../schema/resources.ts';
import { cloneJson } from '../schema/store-json.ts';
import type { KubeObject, PatchType, UpdateOptions } from '../schema/store-types.ts';
import { jsonPatch } from './json-patch.ts';
import { mergePatch } from './merge-patch.ts';
import { PatchError } from './patch-error.ts';
import type { StoreCore } from './store-core.ts';
import { updateObject } from './store-write.ts';
import { strategicMergePatch, supportsStrategicMergePatch } from './strategic-merge-patch.ts';

/** The media types a PATCH may use for `key`, as the 415 answer lists them. */
function acceptedPatchTypes(key: ResourceKey): string {
  const types = ['application/json-patch+json', 'application/merge-patch+json'];
  if (supportsStrategicMergePatch(key)) types.push('application/strategic-merge-patch+json');
  types.push('application/apply-patch+yaml');
  return types.join(', ');
}

/** Applies the patch document to a copy of `original`; PatchErrors become SimApiErrors. */
function applyPatch(
  key: ResourceKey,
  original: Readonly<KubeObject>,
  patchType: PatchType,
  body: unknown,
): KubeObject {
  if (patchType === 'apply' || (patchType === 'strategic' && !supportsStrategicMergePatch(key))) {
    throw new SimApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${acceptedPatchTypes(key).replace(', application/apply-patch+yaml', '')}`,
    );
  }
  try {
    const base = cloneJson(original);
    const result =
      patchType === 'json'
        ? jsonPatch(base, body)
        : patchType === 'merge'
          ? mergePatch(base, body)
          : strategicMergePatch(base, body, key);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw SimApiError.badRequest('the patch did not produce an object');
    }
    return result as KubeObject;
  } catch (error) {
    if (error instanceof PatchError)
      throw new SimApiError(error.status, error.reason, error.message, undefined, { cause: error });
    throw error;
  }
}

/** Patches a stored object and writes the result like update; returns the stored result. */
export function patchObject(
  core: StoreCore,
  key: ResourceKey,
  namespace: string | undefined,
  name: string,
  patchType: PatchType,
  body: unknown,
  options: Readonly<UpdateOptions> = {},
): KubeObject {
  const old = core.find(key, namespace, name);
  if (!old) throw SimApiError.notFound(resourceByKey(key), name);
  const patched = applyPatch(key, old, patchType, body);
  if (!patched.metadata || typeof patched.metadata !== 'object') patched.metadata = {};
  if ((patched.metadata.name ?? name) !== name) {
    throw SimApiError.badRequest(
      `the name of the object (${patched.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  patched.metadata.name = name;
  if (resourceByKey(key).namespaced) patched.metadata.namespace = namespace;
  return updateObject(core, key, patched, options);
}
