/**
 * DELETE of one object and of a collection (handlers/delete.go): DeleteOptions from the body or
 * the query, and the answer the real server gives (the object, or a Success Status).
 */

import { SimApiError } from '../schema/api-error.ts';
import { asRecord } from '../schema/store-json.ts';
import type { DeleteOptions } from '../schema/store-types.ts';
import { strategyOf } from '../storage/store-strategy.ts';
import type { HandlerContext } from './api-context.ts';
import { apiVersionOf } from './api-context.ts';
import { dryRunOf, sendObject } from './api-handlers.ts';
import { listQueryOf } from './api-list-options.ts';
import { parseJsonBody, readBody, sendJson } from './api-response.ts';

const policies = ['Background', 'Foreground', 'Orphan'] as const;

/** DeleteOptions from the JSON body (kubectl, client-node) merged over the query parameters. */
async function deleteOptionsOf(ctx: HandlerContext): Promise<DeleteOptions> {
  const text = await readBody(ctx.req);
  const body = text.trim() ? (asRecord(parseJsonBody(text)) ?? {}) : {};
  const query = ctx.request.query;
  const grace = body.gracePeriodSeconds ?? query.get('gracePeriodSeconds') ?? undefined;
  const orphan = body.orphanDependents ?? query.get('orphanDependents') ?? undefined;
  const policy = body.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && !policies.includes(policy as (typeof policies)[number])) {
    throw SimApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        type: 'FieldValueNotSupported',
        field: 'propagationPolicy',
        message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      },
    ]);
  }
  if (policy !== undefined && orphan !== undefined) {
    throw SimApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        type: 'FieldValueInvalid',
        field: 'propagationPolicy',
        message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
      },
    ]);
  }
  const orphanPolicy = orphan === undefined ? undefined : String(orphan) === 'true' ? 'Orphan' : 'Background';
  const preconditions = asRecord(body.preconditions);
  const dryRun =
    dryRunOf(query, 'DeleteOptions') || (Array.isArray(body.dryRun) && body.dryRun.includes('All'));
  return {
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
    ...((policy ?? orphanPolicy)
      ? { propagationPolicy: (policy ?? orphanPolicy) as DeleteOptions['propagationPolicy'] }
      : {}),
    ...(preconditions
      ? {
          preconditions: {
            uid: preconditions.uid as string | undefined,
            resourceVersion: preconditions.resourceVersion as string | undefined,
          },
        }
      : {}),
    dryRun,
  };
}

/** DELETE of a named object. */
export async function handleDelete(ctx: HandlerContext): Promise<void> {
  if (ctx.request.subresource !== undefined) throw SimApiError.methodNotAllowed(ctx.resource, 'delete');
  const options = await deleteOptionsOf(ctx);
  const name = ctx.request.name ?? '';
  const result = ctx.server.store.deleteWithResult(ctx.resource.key, ctx.request.namespace, name, options);
  if (!result.deleted || strategyOf(ctx.resource.key).returnsDeletedObject) {
    sendObject(ctx, 200, result.object);
    return;
  }
  sendJson(ctx.res, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name,
      ...(ctx.resource.group ? { group: ctx.resource.group } : {}),
      kind: ctx.resource.plural,
      uid: result.object.metadata.uid,
    },
  });
}

/** DELETE of a collection: every selected object, answered with the list of them (as before deletion). */
export async function handleDeleteCollection(ctx: HandlerContext): Promise<void> {
  const options = await deleteOptionsOf(ctx);
  const q = listQueryOf(ctx.request.query, false);
  const { store } = ctx.server;
  const items = store.view(ctx.resource.key, {
    namespace: ctx.request.namespace,
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
  });
  const resourceVersion = String(store.resourceVersion);
  for (const item of items) {
    try {
      store.deleteWithResult(ctx.resource.key, item.metadata.namespace, item.metadata.name ?? '', options);
    } catch (error) {
      if (!(error instanceof SimApiError && error.status === 404)) throw error;
    }
  }
  sendJson(ctx.res, 200, {
    kind: ctx.resource.listKind,
    apiVersion: apiVersionOf(ctx.resource),
    metadata: { resourceVersion },
    items,
  });
}
