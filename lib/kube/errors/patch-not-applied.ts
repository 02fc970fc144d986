/**
 * A JSON patch that did not apply. kube-apiserver applies a JSON patch to the object as stored
 * before it validates the result (apiserver endpoints/handlers/patch.go, jsonPatcher.applyJSPatch):
 * an operation that does not apply — a `test` whose value differs, a path the object lacks — is
 * answered 422 Invalid by `NewGenericServerResponse`, with the json-patch library's message as its
 * one cause (type UnexpectedServerResponse) and no field. A patched object the API server refuses is
 * also 422 Invalid, but its causes name the fields at fault (`spec.containers[0].resources…`). So
 * a 422 naming no field means the object is no longer what the patch was made from: read it again.
 */
import { InvalidError } from './kube-api-errors.ts';

/** True when `error` is a 422 answer to a JSON patch that did not apply (no cause names a field). */
export function isPatchNotApplied(error: unknown): error is InvalidError {
  return error instanceof InvalidError && error.causes.every((cause) => !cause.field);
}
