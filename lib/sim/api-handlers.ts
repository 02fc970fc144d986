/**
 * GET of one object, POST, PUT and PATCH of the simulated API server (handlers/get.go, create.go,
 * update.go, patch.go in staging/src/k8s.io/apiserver/pkg/endpoints/handlers).
 */

import { apiVersionOf, type HandlerContext } from './api-context.ts';
import { SimApiError } from './api-error.ts';
import { parseJsonBody, readBody, readBodyBytes, renderingFor, sendJson } from './api-response.ts';
import { decodeProtobufBody, isProtobufBody } from './protobuf-body.ts';
import { asRecord } from './store-json.ts';
import type { KubeObject, PatchType } from './store-types.ts';
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
  sendJson(ctx.res, code, obj);
}

/** The subresource of the request, refusing those not served (404 like the real server). */
function subresourceOf(ctx: HandlerContext): 'status' | undefined {
  const sub = ctx.request.subresource;
  if (sub === undefined) return undefined;
  if (sub === 'status' && ctx.resource.subresources.includes('status')) return 'status';
  throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** Whether `?dryRun=All` was given; other values are 400 as upstream (ValidateDryRun). */
export function dryRunOf(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  throw SimApiError.invalid('CreateOptions', 'meta.k8s.io', '', [
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

/** Reads the request body as an object of this resource, with the URL's namespace. */
async function bodyObject(ctx: HandlerContext): Promise<KubeObject> {
  const bytes = await readBodyBytes(ctx.req);
  const body = isProtobufBody(bytes)
    ? decodeProtobufBody(bytes)
    : asRecord(parseJsonBody(bytes.toString('utf8')));
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
  return obj;
}

/** POST to a collection. */
export async function handleCreate(ctx: HandlerContext): Promise<void> {
  if (ctx.request.name !== undefined) throw SimApiError.methodNotAllowed(ctx.resource, 'create');
  const obj = await bodyObject(ctx);
  const created = ctx.server.store.create(ctx.resource.key, obj, { dryRun: dryRunOf(ctx.request.query) });
  sendObject(ctx, 201, created);
}

/** PUT of a named object or its status. */
export async function handleUpdate(ctx: HandlerContext): Promise<void> {
  const subresource = subresourceOf(ctx);
  const obj = await bodyObject(ctx);
  const name = ctx.request.name ?? '';
  if (obj.metadata.name !== name) {
    throw SimApiError.badRequest(
      `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`,
    );
  }
  const existed = ctx.server.store.peek(ctx.resource.key, ctx.request.namespace, name) !== undefined;
  const options = { dryRun: dryRunOf(ctx.request.query), ...(subresource ? { subresource } : {}) };
  const updated = ctx.server.store.update(ctx.resource.key, obj, options);
  sendObject(ctx, existed ? 200 : 201, updated);
}

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

/** PATCH of a named object or its status. */
export async function handlePatch(ctx: HandlerContext): Promise<void> {
  const subresource = subresourceOf(ctx);
  const patchType = patchTypeOf(ctx.req.headers['content-type']);
  const text = await readBody(ctx.req);
  const body = patchType === 'apply' ? text : parseJsonBody(text);
  const options = { dryRun: dryRunOf(ctx.request.query), ...(subresource ? { subresource } : {}) };
  const patched = ctx.server.store.patch(
    ctx.resource.key,
    ctx.request.namespace,
    ctx.request.name ?? '',
    patchType,
    body,
    options,
  );
  sendObject(ctx, 200, patched);
}
