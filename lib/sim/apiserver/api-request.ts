/**
 * Which resource, namespace, name, subresource and verb a request addresses, as
 * staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (RequestInfoFactory) derives them.
 */
import { type ResourceDefinition, resourceAt } from '../schema/resources.ts';

/** What a resource request addresses. */
export interface ResourceRequest {
  readonly kind: 'resource';
  /** get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb: string;
  /** Undefined when the path names a resource the server does not serve (404). */
  readonly resource: ResourceDefinition | undefined;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly query: URLSearchParams;
}

/** A request for a path outside /api/v1 and /apis/<group>/<version> resources (discovery, /version). */
export interface NonResourceRequest {
  readonly kind: 'nonResource';
  readonly verb: string;
  readonly path: string;
  readonly query: URLSearchParams;
}

/** Namespace subresources that stay on the namespace itself (requestinfo.go namespaceSubresources). */
const namespaceSubresources = new Set(['status', 'finalize']);

const isWatchParam = (value: string | null): boolean => value === 'true' || value === '1';

/** The verb of a resource request (RequestInfoFactory.NewRequestInfo). */
function verbOf(method: string, hasName: boolean, watch: boolean): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      if (watch) return 'watch';
      return hasName ? 'get' : 'list';
  }
}

/** Parses a request path and method into what it addresses. */
export function parseRequest(method: string, rawUrl: string): ResourceRequest | NonResourceRequest {
  const url = new URL(rawUrl, 'http://localhost');
  const parts = url.pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    [group, version, rest] = ['', parts[1] ?? '', parts.slice(2)];
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    [group, version, rest] = [parts[1] ?? '', parts[2] ?? '', parts.slice(3)];
  } else {
    return { kind: 'nonResource', verb: method.toLowerCase(), path: url.pathname, query: url.searchParams };
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const plural = rest[0] ?? '';
  const name = rest[1];
  const subresource = rest[2];
  if (plural === 'namespaces') namespace = undefined;
  const watch = legacyWatch || isWatchParam(url.searchParams.get('watch'));
  return {
    kind: 'resource',
    verb: verbOf(method, name !== undefined, watch),
    resource: resourceAt(group, version, plural),
    group,
    version,
    plural,
    namespace,
    name,
    subresource,
    query: url.searchParams,
  };
}
