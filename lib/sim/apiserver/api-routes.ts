/**
 * The non-resource paths kubectl and client-node read: /version, health checks, discovery
 * (legacy and aggregated, apiserver/pkg/endpoints/discovery) and /openapi/v3.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimApiError } from '../schema/api-error.ts';
import type { NonResourceRequest } from './api-request.ts';
import { parseAccept, sendJson } from './api-response.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.ts';
import { aggregatedDiscovery, aggregatedDiscoveryContentType } from './discovery-aggregated.ts';
import { openApiV3Document, openApiV3Index } from './openapi.ts';
import { serveOpenApiV2 } from './openapi-v2.ts';

/** What /version answers: a v1.33 server, so kubectl's dispatcher runs its 1.33 client. */
export const serverVersion = {
  major: '1',
  minor: '33',
  emulationMajor: '1',
  emulationMinor: '33',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '32',
  gitVersion: 'v1.33.1',
  gitCommit: '8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828',
  gitTreeState: 'clean',
  buildDate: '2025-05-15T08:19:08Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** Whether the client asked for aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList). */
function wantsAggregated(req: IncomingMessage): boolean {
  return parseAccept(req.headers.accept).some(
    (r) =>
      r.params.as === 'APIGroupDiscoveryList' && r.params.g === 'apidiscovery.k8s.io' && r.params.v === 'v2',
  );
}

/** The document for a discovery path, or undefined when the path is not a discovery path. */
function discoveryDocument(
  req: IncomingMessage,
  path: string,
): { body: unknown; contentType: string } | undefined {
  const json = 'application/json';
  if (path === '/api' || path === '/apis') {
    if (wantsAggregated(req))
      return {
        body: aggregatedDiscovery(path === '/api' ? 'api' : 'apis'),
        contentType: aggregatedDiscoveryContentType,
      };
    const host =
      req.socket.localAddress && req.socket.localPort
        ? `${req.socket.localAddress}:${req.socket.localPort}`
        : '127.0.0.1';
    return { body: path === '/api' ? apiVersions(host) : apiGroupList(), contentType: json };
  }
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api' && parts.length === 2) return wrap(apiResourceList('', parts[1] ?? ''));
  if (parts[0] === 'apis' && parts.length === 2) return wrap(apiGroup(parts[1] ?? ''));
  if (parts[0] === 'apis' && parts.length === 3) return wrap(apiResourceList(parts[1] ?? '', parts[2] ?? ''));
  return undefined;
}

function wrap(body: unknown): { body: unknown; contentType: string } {
  if (body === undefined)
    throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  return { body, contentType: 'application/json' };
}

/** The OpenAPI v3 document for a path under /openapi/v3, or undefined when not an OpenAPI path. */
function openApiDocument(path: string): unknown {
  if (path === '/openapi/v3' || path === '/openapi/v3/') return openApiV3Index();
  if (!path.startsWith('/openapi/v3/')) return undefined;
  const document = openApiV3Document(path.slice('/openapi/v3/'.length));
  if (!document)
    throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  return document;
}

/** Answers a non-resource request; 404 (as the real server) for unknown paths. */
export function handleNonResource(
  req: IncomingMessage,
  res: ServerResponse,
  request: NonResourceRequest,
): void {
  const path = request.path.replace(/\/+$/, '') || '/';
  if (request.verb !== 'get' && request.verb !== 'head')
    throw new SimApiError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource`,
    );
  if (path === '/version') {
    sendJson(res, 200, serverVersion);
    return;
  }
  if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('ok');
    return;
  }
  const discovery = discoveryDocument(req, path);
  if (discovery) {
    sendJson(res, 200, discovery.body, discovery.contentType);
    return;
  }
  if (path === '/openapi/v2') {
    serveOpenApiV2(req, res);
    return;
  }
  const openApi = openApiDocument(path);
  if (openApi !== undefined) {
    sendJson(res, 200, openApi);
    return;
  }
  throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
