/**
 * GET of one object, POST and PUT of the simulated API server (handlers/get.go, create.go and
 * update.go in staging/src/k8s.io/apiserver/pkg/endpoints/handlers), with server-side field
 * validation of the body; PATCH is in api-patch.ts.
 */

import { SimApiError } from '../schema/api-error.ts';
import { fieldSchemaOf, isCustomResource } from '../schema/store-field-schema.ts';
import { asRecord, jsonText } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';
import { orderUnknownPaths } from '../schema/store-unknown-fields.ts';
import { answerSelfSubjectAccessReview } from './api-access-review.ts';
import { apiVersionOf, type HandlerContext } from './api-context.ts';
import {
  enforceFieldValidation,
  type FieldValidation,
  fieldValidationOf,
  strictBodyError,
} from './api-field-validation.ts';
import { parseJsonBody, readBodyBytes, renderingFor, sendJson } from './api-response.ts';
import { strictErrorText, strictJsonErrors } from './api-strict-json.ts';
import { decodeProtobufBody, isProtobufBody } from './protobuf-body.ts';
import { toTable } from './table.ts';

/** Sends one object as JSON, or as a one-row Table / PartialObjectMetadata when Accept asks. */
export function sendObject(ctx: HandlerContext, code: number, obj: Readonly<KubeObject>): void {
  const rendering = renderingFor(ctx.req.headers.accept);
  if (rendering === 'Table') {
    const includeObject = (ctx.request.query.get('includeObject') ?? 'Metadata') as
      | 'None'
      | 'Metadata'
      | 'Object';
    const table = toTable(ctx.resource.key, [obj as KubeObject], {
      now: ctx.server.now(),
      wide: true,
      includeObject,
      listMeta: { resourceVersion: obj.metadata.resourceVersion },
    });
    sendJson(ctx.res, code, table, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    return;
  }
  if (rendering === 'PartialObjectMetadata') {
    sendJson(
      ctx.res,
      code,
      { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata },
      'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
    );
    return;
  }
  sendJson(ctx.res, code, jsonText(obj));
}

/** The subresource of the request, refusing those not served (404 like the real server). */
export function subresourceOf(ctx: HandlerContext): 'status' | 'resize' | undefined {
  const sub = ctx.request.subresource;
  if (sub === undefined) return undefined;
  if (sub === 'status' && ctx.resource.subresources.includes('status')) return 'status';
  if (sub === 'resize' && ctx.resource.subresources.includes('resize')) return 'resize';
  throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * Whether `?dryRun=All` was given; other values are 422 as upstream (ValidateDryRun), naming the
 * options kind of the verb.
 */
export function dryRunOf(query: URLSearchParams, optionsKind = 'CreateOptions'): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  throw SimApiError.invalid(optionsKind, 'meta.k8s.io', '', [
    {
      type: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`,
    },
  ]);
}

/** GET of a named object. */
export function handleGet(ctx: HandlerContext): void {
  subresourceOf(ctx);
  const { key } = ctx.resource;
  const name = ctx.request.name ?? '';
  const obj = ctx.server.store.peek(key, ctx.request.namespace, name);
  if (!obj) throw SimApiError.notFound(ctx.resource, name);
  sendObject(ctx, 200, obj);
}

/** A decoded request body and its strict-decoding errors (unknown and duplicate fields). */
interface DecodedBody {
  readonly obj: KubeObject;
  readonly strictErrors: readonly string[];
}

/**
 * The strict-decoding error texts of a JSON body of this resource: document order for built-in
 * kinds; for custom resources the duplicates first, then the unknown fields in pruning order
 * (schemaCoercingDecoder.Decode appends the pruned paths after the JSON decoder's errors).
 */
function bodyStrictErrors(ctx: HandlerContext, text: string): string[] {
  const { key } = ctx.resource;
  const errors = strictJsonErrors(text, fieldSchemaOf(key));
  if (!isCustomResource(key)) return errors.map(strictErrorText);
  const duplicates = errors.filter((e) => e.kind === 'duplicate').map(strictErrorText);
  const unknown = errors.filter((e) => e.kind === 'unknown').map((e) => e.path);
  return [...duplicates, ...orderUnknownPaths(key, unknown).map((path) => `unknown field "${path}"`)];
}

/** Reads the request body as an object of this resource, with the URL's namespace. */
async function bodyObject(ctx: HandlerContext, directive: FieldValidation): Promise<DecodedBody> {
  const bytes = await readBodyBytes(ctx.req);
  const protobuf = isProtobufBody(bytes);
  const text = protobuf ? '' : bytes.toString('utf8');
  const body = protobuf ? decodeProtobufBody(bytes) : asRecord(parseJsonBody(text));
  if (!body) throw SimApiError.badRequest('the object provided is unrecognized (expected a JSON object)');
  const obj = body as KubeObject;
  obj.metadata = asRecord(obj.metadata) ?? {};
  if (!obj.apiVersion) obj.apiVersion = apiVersionOf(ctx.resource);
  if (!obj.kind) obj.kind = ctx.resource.kind;
  if (ctx.resource.namespaced) {
    const ns = ctx.request.namespace;
    if (obj.metadata.namespace && ns && obj.metadata.namespace !== ns) {
      throw SimApiError.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    obj.metadata.namespace = ns;
  }
  const strictErrors = protobuf || directive === 'Ignore' ? [] : bodyStrictErrors(ctx, text);
  return { obj, strictErrors };
}

/** Refuses or warns about the unknown and duplicate fields of a create or update body. */
function enforceOnBody(ctx: HandlerContext, directive: FieldValidation, body: DecodedBody): void {
  const version = String(body.obj.apiVersion).split('/').pop() ?? '';
  enforceFieldValidation(directive, body.strictErrors, ctx.res, (texts) =>
    strictBodyError(body.obj.kind, version, ctx.resource.kind, texts),
  );
}

/** POST to a collection; a SelfSubjectAccessReview is answered, not stored. */
export async function handleCreate(ctx: HandlerContext): Promise<void> {
  if (ctx.request.name !== undefined) throw SimApiError.methodNotAllowed(ctx.resource, 'create');
  const dryRun = dryRunOf(ctx.request.query, 'CreateOptions');
  const directive = fieldValidationOf(ctx.request.query, 'CreateOptions');
  const body = await bodyObject(ctx, directive);
  enforceOnBody(ctx, directive, body);
  if (ctx.resource.key === 'authorization.k8s.io/selfsubjectaccessreviews') {
    sendObject(ctx, 201, answerSelfSubjectAccessReview(ctx, body.obj));
    return;
  }
  const created = ctx.server.store.createShared(ctx.resource.key, body.obj, { dryRun });
  sendObject(ctx, 201, created);
}

/** PUT of a named object or its status. */
export async function handleUpdate(ctx: HandlerContext): Promise<void> {
  const subresource = subresourceOf(ctx);
  const dryRun = dryRunOf(ctx.request.query, 'UpdateOptions');
  const directive = fieldValidationOf(ctx.request.query, 'UpdateOptions');
  const body = await bodyObject(ctx, directive);
  enforceOnBody(ctx, directive, body);
  const obj = body.obj;
  const name = ctx.request.name ?? '';
  if (obj.metadata.name !== name) {
    throw SimApiError.badRequest(
      `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`,
    );
  }
  const existed = ctx.server.store.peek(ctx.resource.key, ctx.request.namespace, name) !== undefined;
  const options = { dryRun, ...(subresource ? { subresource } : {}) };
  const updated = ctx.server.store.updateShared(ctx.resource.key, obj, options);
  sendObject(ctx, existed ? 200 : 201, updated);
}
