/**
 * Which resource, namespace, name, subresource and verb a request addresses, as
 * staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (RequestInfoFactory) derives them.
 */
import type { RequestAttributes } from '../auth/request-attributes.ts';
import type { UserInfo } from '../auth/user-info.ts';
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

/**
 * What the authorizer decides `request` of `user` on (requestinfo.go): a list or watch whose field
 * selector names one object (`metadata.name=x`) is about that object, as upstream sets its name.
 */
export function requestAttributes(
  user: UserInfo,
  request: Readonly<ResourceRequest | NonResourceRequest>,
): RequestAttributes {
  const common = { user, verb: request.verb, path: '' };
  if (request.kind === 'nonResource') {
    const none = { apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
    return { ...common, ...none, resourceRequest: false, path: request.path };
  }
  const selected = /^metadata\.name=([^,]+)$/.exec(request.query.get('fieldSelector') ?? '')?.[1];
  const listing = request.verb === 'list' || request.verb === 'watch';
  return {
    ...common,
    resourceRequest: true,
    apiGroup: request.group,
    resource: request.plural,
    subresource: request.subresource ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? (listing && selected ? selected : ''),
  };
}
