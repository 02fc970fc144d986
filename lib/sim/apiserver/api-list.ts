/**
 * GET of a collection: selectors, resourceVersion semantics (unset / "0" / NotOlderThan / Exact),
 * limit and continue with consistent pages, and the list, Table or PartialObjectMetadataList body.
 * A list not older than a version the store has not reached waits for it as the watch cache does,
 * then answers 504 Too large resource version (`api-wait-until-fresh.ts`).
 */

import { SimApiError } from '../schema/api-error.ts';
import type { KubeObject } from '../schema/store-types.ts';
import { apiVersionOf, type HandlerContext } from './api-context.ts';
import {
  decodeContinue,
  encodeContinue,
  type ListQuery,
  listQueryOf,
  validateListQuery,
} from './api-list-options.ts';
import { renderingFor, sendJson } from './api-response.ts';
import { waitUntilFresh } from './api-wait-until-fresh.ts';
import { toTable } from './table.ts';

const idOf = (o: Readonly<KubeObject>): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** The (sorted) objects of the list and the resourceVersion they are at. */
function listState(
  ctx: HandlerContext,
  q: Readonly<ListQuery>,
): { items: readonly KubeObject[]; rv: number; start: string } {
  const { store } = ctx.server;
  const filter = {
    namespace: ctx.request.namespace,
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
  };
  if (q.continueToken) {
    if (q.resourceVersion)
      throw SimApiError.badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(q.continueToken);
    const id = `${ctx.resource.key}|${filter.namespace ?? ''}|${q.labelSelector}|${q.fieldSelector}|${token.resourceVersion}`;
    try {
      const items = ctx.server.snapshots.get(id, () =>
        store.viewAt(ctx.resource.key, token.resourceVersion, filter),
      );
      return { items, rv: token.resourceVersion, start: token.start };
    } catch (error) {
      if (error instanceof SimApiError && error.status === 410) throw continueExpired();
      throw error;
    }
  }
  const requested = q.resourceVersion && q.resourceVersion !== '0' ? Number(q.resourceVersion) : undefined;
  if (requested !== undefined && !Number.isInteger(requested))
    throw SimApiError.badRequest(`invalid resource version: ${q.resourceVersion}`);
  if (requested !== undefined && q.resourceVersionMatch === 'Exact') {
    return { items: store.viewAt(ctx.resource.key, requested, filter), rv: requested, start: '' };
  }
  if (requested !== undefined && requested > store.resourceVersion)
    store.viewAt(ctx.resource.key, requested, filter);
  const rv = store.resourceVersion;
  const items = store.view(ctx.resource.key, filter);
  if (q.limit > 0)
    ctx.server.snapshots.get(
      `${ctx.resource.key}|${filter.namespace ?? ''}|${q.labelSelector}|${q.fieldSelector}|${rv}`,
      () => items,
    );
  return { items, rv, start: '' };
}

/** 410 for a continue token whose list left the window (storage.NewExpiredError wording). */
function continueExpired(): SimApiError {
  return SimApiError.expired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
}

/** The index of the first object whose key is at or after `start` (binary search in key order). */
function firstAtOrAfter(items: readonly KubeObject[], start: string): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const item = items[mid];
    if (item && idOf(item) < start) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** One page of the list with its ListMeta. */
function page(ctx: HandlerContext, q: Readonly<ListQuery>) {
  const state = listState(ctx, q);
  // The watch cache serves resourceVersion=0 lists whole, ignoring limit (cacher.go GetList).
  const limit = q.resourceVersion === '0' && !q.continueToken ? 0 : q.limit;
  const from = state.start ? firstAtOrAfter(state.items, state.start) : 0;
  const to = limit > 0 ? Math.min(state.items.length, from + limit) : state.items.length;
  const items = state.items.slice(from, to);
  const meta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = {
    resourceVersion: String(state.rv),
  };
  const last = items[items.length - 1];
  if (to < state.items.length && last) {
    meta.continue = encodeContinue(state.rv, idOf(last));
    if (!q.labelSelector && !q.fieldSelector) meta.remainingItemCount = state.items.length - to;
  }
  return { items, meta };
}

/**
 * The list encodings of stored object versions, by resource: a stored version is deep-frozen, so
 * its bytes never change, and a LIST of 20,000 nodes encodes only the versions it has not listed
 * before (the watch cache of a real server keeps its objects encoded the same way), then copies
 * bytes rather than encoding the whole body as one string: the server's one thread is blocked
 * for a LIST of every node or every pod as short a time as it can be.
 */
const itemBytes = new Map<string, WeakMap<object, Buffer>>();
const COMMA = Buffer.from(',');

/** Serializes a list fast: items as stored, with TypeMeta dropped for built-in types as the real server does. */
function listBody(ctx: HandlerContext, items: readonly KubeObject[], meta: object): Buffer {
  const { resource } = ctx;
  const apiVersion = apiVersionOf(resource);
  const builtIn = resource.group !== 'everynode.dev';
  const prefix = `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(resource.kind)},`;
  const known = itemBytes.get(resource.key) ?? new WeakMap<object, Buffer>();
  itemBytes.set(resource.key, known);
  const head = `{"kind":${JSON.stringify(resource.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(meta)},"items":[`;
  const parts: Buffer[] = [Buffer.from(head)];
  for (const [index, item] of items.entries()) {
    let bytes = known.get(item);
    if (bytes === undefined) {
      const json = JSON.stringify(item);
      bytes = Buffer.from(builtIn && json.startsWith(prefix) ? `{${json.slice(prefix.length)}` : json);
      if (Object.isFrozen(item)) known.set(item, bytes);
    }
    if (index > 0) parts.push(COMMA);
    parts.push(bytes);
  }
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/**
 * The version a list must be at least as new as, when the watch cache serves it and waits for it:
 * `resourceVersionMatch=NotOlderThan`, or a resourceVersion without match nor limit (the cacher's
 * delegator.go `shouldDelegateList` sends Exact, continue and a limit without match to etcd).
 */
function minimumVersion(q: Readonly<ListQuery>): number | undefined {
  if (q.continueToken || q.resourceVersion === '' || q.resourceVersion === '0') return undefined;
  if (q.resourceVersionMatch === 'Exact' || (q.resourceVersionMatch === '' && q.limit > 0)) return undefined;
  const version = Number(q.resourceVersion);
  return Number.isInteger(version) ? version : undefined;
}

/**
 * Sends a list answer of `items` objects and notes its size, keyed as the request was counted,
 * so benchmarks can show the largest LIST a component makes.
 */
function sendList(ctx: HandlerContext, items: number, body: string | Buffer, contentType?: string): void {
  const { request } = ctx;
  ctx.server.counters?.recordList(
    {
      verb: request.verb,
      resource: ctx.resource.key,
      subresource: request.subresource ?? '',
      userAgent: ctx.req.headers['user-agent'] ?? '',
    },
    items,
    Buffer.byteLength(body),
  );
  sendJson(ctx.res, 200, body, contentType);
}

/** Answers a list request. */
export async function handleList(ctx: HandlerContext): Promise<void> {
  const q = listQueryOf(ctx.request.query, false);
  validateListQuery(q);
  const minimum = minimumVersion(q);
  if (minimum !== undefined) await waitUntilFresh(ctx.server.store, minimum);
  const rendering = renderingFor(ctx.req.headers.accept);
  const { items, meta } = page(ctx, q);
  if (rendering === 'Table') {
    const includeObject = (ctx.request.query.get('includeObject') ?? 'Metadata') as
      | 'None'
      | 'Metadata'
      | 'Object';
    const table = toTable(ctx.resource.key, items, {
      now: ctx.server.now(),
      wide: true,
      includeObject,
      listMeta: meta,
    });
    sendList(ctx, items.length, JSON.stringify(table), 'application/json;as=Table;v=v1;g=meta.k8s.io');
    return;
  }
  if (rendering === 'PartialObjectMetadata') {
    const list = {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: meta,
      items: items.map((o) => ({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: o.metadata,
      })),
    };
    sendList(
      ctx,
      items.length,
      JSON.stringify(list),
      'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    );
    return;
  }
  sendList(ctx, items.length, listBody(ctx, items, meta));
}
