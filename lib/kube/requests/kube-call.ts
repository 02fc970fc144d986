/**
 * The adapter's boundary: every client-node call goes through here, so what leaves the adapter is
 * always a typed error saying what was being done.
 */

import { NotFoundError } from '../errors/kube-api-errors.ts';
import { toKubeError } from '../errors/to-kube-error.ts';
import type { ListOptions, ListResult, ReadOptions } from '../kube-port.ts';

/** The result of `call`, or its failure as a typed error whose message starts with `doing`. */
export async function kubeCall<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toKubeError(error, doing);
  }
}

/** Like {@link kubeCall}, but undefined when the API server answers 404 NotFound. */
export async function kubeGet<T>(doing: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await kubeCall(doing, call);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The `resourceVersion` of a read: "0" when the caller allows a stale answer, which the API server
 * serves from its watch cache without a quorum read of etcd (apiserver "resourceVersion=0: any
 * version, the cached one is fine"); undefined (most recent, a quorum read) otherwise.
 */
export function readResourceVersion(options: Readonly<ReadOptions> | undefined): string | undefined {
  return options?.allowStale ? '0' : undefined;
}

/** client-node list parameters of `options`. */
export function listParameters(options: Readonly<ListOptions> = {}) {
  const { notOlderThan } = options;
  return {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    limit: options.limit,
    _continue: options.continue,
    // Stale lists (resourceVersion=0) come from the watch cache; see readResourceVersion.
    resourceVersion: notOlderThan ?? readResourceVersion(options),
    // Explicit, as the API concepts recommend whenever resourceVersion is set: without it a
    // resourceVersion with a limit means an exact match ("legacy exact match", served by etcd).
    resourceVersionMatch: notOlderThan ? 'NotOlderThan' : undefined,
  };
}

interface TypedList<T> {
  items: T[];
  metadata?: { resourceVersion?: string; _continue?: string };
}

/**
 * The list answer of `list`, each item given the `apiVersion` and `kind` the API server leaves out
 * of list items (lib/core reads them, e.g. to build controller references).
 */
export function listResultOf<T extends { apiVersion?: string; kind?: string }>(
  list: Readonly<TypedList<T>>,
  apiVersion: string,
  kind: string,
): ListResult<T> {
  const items = list.items.map((item) => Object.assign(item, { apiVersion, kind }));
  const next = list.metadata?._continue;
  return {
    items,
    resourceVersion: list.metadata?.resourceVersion ?? '',
    ...(next ? { continue: next } : {}),
  };
}

/** `object` with `apiVersion` and `kind` set (a single-object answer may lack them too). */
export function withKind<T extends { apiVersion?: string; kind?: string }>(
  object: T,
  apiVersion: string,
  kind: string,
): T {
  return Object.assign(object, { apiVersion, kind });
}
