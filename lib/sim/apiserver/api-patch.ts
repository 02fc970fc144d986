/**
 * PATCH of the simulated API server (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go):
 * the patch type from the Content-Type, the patch applied by the store, and server-side field
 * validation of both the patch document (duplicate keys; unknown keys of JSON patch operations) and
 * the patched object (unknown fields), refused with 422 on `patch` under Strict.
 */

import { SimApiError } from '../schema/api-error.ts';
import { fromJsonSchema } from '../schema/store-field-schema.ts';
import type { PatchType, UnknownFieldsHook } from '../schema/store-types.ts';
import type { HandlerContext } from './api-context.ts';
import {
  enforceFieldValidation,
  type FieldValidation,
  fieldValidationOf,
  strictPatchError,
} from './api-field-validation.ts';
import { goValueString } from './api-go-format.ts';
import { dryRunOf, sendObject, subresourceOf } from './api-handlers.ts';
import { parseJsonBody, readBody } from './api-response.ts';
import { strictErrorText, strictJsonErrors } from './api-strict-json.ts';

/** The patch type of a PATCH's Content-Type (handlers/patch.go); 415 for anything else. */
function patchTypeOf(contentType: string | undefined): PatchType {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  switch (type) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw new SimApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
      );
  }
}

/** A JSON patch document as patch.go strictly decodes it: a list of jsonPatchOp structs. */
const jsonPatchSchema = fromJsonSchema({
  type: 'array',
  items: {
    type: 'object',
    properties: {
      op: { type: 'string' },
      path: { type: 'string' },
      from: { type: 'string' },
      value: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
});

/**
 * Strict errors of the patch document itself (applyJSPatch, strategicPatchObject): duplicate keys
 * of merge and strategic merge patches, and unknown or duplicate keys of JSON patch operations,
 * those prefixed `json patch`.
 */
function patchDocumentErrors(patchType: PatchType, text: string): string[] {
  if (patchType === 'json')
    return strictJsonErrors(text, jsonPatchSchema).map((e) => `json patch ${strictErrorText(e)}`);
  return strictJsonErrors(text).map(strictErrorText);
}

/**
 * The hook that judges the patched object: its unknown fields, after the patch document's own
 * errors, under `directive`. The Invalid value shown is the patch map for strategic merge patches
 * and the patched object for the others, as patch.go shows them.
 */
function unknownFieldsHook(
  ctx: HandlerContext,
  directive: FieldValidation,
  patchType: PatchType,
  patch: unknown,
  documentErrors: readonly string[],
): UnknownFieldsHook | undefined {
  if (directive === 'Ignore') return undefined;
  return (paths, original) => {
    const texts = [...documentErrors, ...paths.map((path) => `unknown field ${JSON.stringify(path)}`)];
    const shown = () => (patchType === 'strategic' ? goValueString(patch) : JSON.stringify(original));
    enforceFieldValidation(directive, texts, ctx.res, (all) => strictPatchError(shown(), all));
  };
}

/** PATCH of a named object or its status. */
export async function handlePatch(ctx: HandlerContext): Promise<void> {
  const subresource = subresourceOf(ctx);
  const patchType = patchTypeOf(ctx.req.headers['content-type']);
  const dryRun = dryRunOf(ctx.request.query, 'PatchOptions');
  const directive = fieldValidationOf(ctx.request.query, 'PatchOptions');
  const text = await readBody(ctx.req);
  const body = patchType === 'apply' ? text : parseJsonBody(text);
  const documentErrors =
    directive === 'Ignore' || patchType === 'apply' ? [] : patchDocumentErrors(patchType, text);
  const onUnknownFields = unknownFieldsHook(ctx, directive, patchType, body, documentErrors);
  const options = {
    dryRun,
    ...(subresource ? { subresource } : {}),
    ...(onUnknownFields ? { onUnknownFields } : {}),
  };
  const patched = ctx.server.store.patchShared(
    ctx.resource.key,
    ctx.request.namespace,
    ctx.request.name ?? '',
    patchType,
    body,
    options,
  );
  sendObject(ctx, 200, patched);
}
