/**
 * The simulated Kubernetes API server: HTTP (or HTTPS, given a certificate) on 127.0.0.1 serving
 * the ClusterStore with the REST semantics of the real kube-apiserver, counted and optionally
 * faulted per request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type AccessControl, OPEN_ACCESS } from '../auth/access-control.ts';
import { forbidden } from '../auth/access-denied.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { RequestCounters } from '../counters.ts';
import type { FaultInjector } from '../faults.ts';
import { SimApiError } from '../schema/api-error.ts';
import type { ClusterStore } from '../storage/store.ts';
import { type HandlerContext, ListSnapshots, type ServerState } from './api-context.ts';
import { handleDelete, handleDeleteCollection } from './api-delete.ts';
import { handleCreate, handleGet, handleUpdate } from './api-handlers.ts';
import { handleList } from './api-list.ts';
import { handlePatch } from './api-patch.ts';
import {
  type NonResourceRequest,
  parseRequest,
  type ResourceRequest,
  requestAttributes,
} from './api-request.ts';
import { sendError } from './api-response.ts';
import { handleNonResource } from './api-routes.ts';
import { handleWatch } from './api-watch.ts';

/** Options of createApiServer. */
export interface ApiServerOptions {
  faults?: FaultInjector;
  counters?: RequestCounters;
  /** Milliseconds between watch BOOKMARK events (allowWatchBookmarks); default 60,000 like the watch cache. */
  bookmarkIntervalMs?: number;
  /** Clock for Table AGE cells; default the system clock. */
  now?: () => Date;
  /**
   * kube-apiserver's `--min-request-timeout` in seconds (default 1800): a watch without
   * timeoutSeconds ends after a random time between this and twice this.
   */
  minRequestTimeoutSeconds?: number;
  /** Multiplies that server-chosen watch lifetime, like the simulated cluster's timeScale. Default 1. */
  timeScale?: number;
  /** Source of the random watch lifetimes, in [0, 1); default Math.random. */
  random?: () => number;
  /** Authentication and authorization of every request; default: every request is an administrator's. */
  access?: AccessControl;
  /**
   * Serve HTTPS with this certificate and private key (PEM), as kube-apiserver's `--tls-cert-file`
   * and `--tls-private-key-file`; default plain HTTP.
   */
  tls?: { readonly cert: string; readonly key: string };
}

/**
 * How long a watch without timeoutSeconds lasts, in ms: `--min-request-timeout` × [1, 2), scaled
 * (handlers/get.go: `minRequestTimeout * (rand.Float64() + 1.0)`, spreading reconnects out).
 */
function watchLifetime(options: Readonly<ApiServerOptions>): () => number {
  const seconds = options.minRequestTimeoutSeconds ?? 1800;
  const scale = options.timeScale ?? 1;
  const random = options.random ?? Math.random;
  return () => seconds * (1 + random()) * 1000 * scale;
}

/** A running (or ready to run) simulated API server. */
export interface ApiServer {
  /** Starts listening on 127.0.0.1:`port` (0 or omitted: any free port); resolves to the base URL. */
  listen(port?: number): Promise<string>;
  /** Closes open watches and connections, then the listener. */
  close(): Promise<void>;
}

const handlers: Readonly<Record<string, (ctx: HandlerContext) => void | Promise<void>>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** Handles a resource request; 404 for a resource not served, 405 for a verb it does not allow. */
async function handleResource(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  request: ResourceRequest,
  user: UserInfo,
): Promise<void> {
  const resource = request.resource;
  if (!resource)
    throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  const verb = request.verb;
  const allowed =
    resource.verbs.includes(verb as (typeof resource.verbs)[number]) ||
    ((request.subresource === 'status' || request.subresource === 'resize') &&
      ['get', 'update', 'patch'].includes(verb));
  const handler = handlers[verb];
  if (!handler || !allowed) throw SimApiError.methodNotAllowed(resource, verb);
  if (
    resource.namespaced &&
    request.namespace === undefined &&
    ['create', 'get', 'update', 'patch', 'delete'].includes(verb)
  ) {
    throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  }
  await handler({ server: state, req, res, request, resource, user });
}

/**
 * The user `req` authenticates as, once `access` allowed what it asks (WithAuthentication, then
 * WithAuthorization); throws the 401 or 403 to answer otherwise.
 */
async function admit(
  access: AccessControl,
  req: IncomingMessage,
  request: ResourceRequest | NonResourceRequest,
): Promise<UserInfo> {
  const user = await access.authenticate(req);
  const attributes = requestAttributes(user, request);
  const decision = access.authorize(attributes);
  if (!decision.allowed) throw forbidden(attributes, decision.reason);
  return user;
}

/** The request listener: counts, applies faults, authenticates and authorizes, dispatches, turns errors into Status answers. */
function listener(state: ServerState, counters: RequestCounters | undefined) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = parseRequest(req.method ?? 'GET', req.url ?? '/');
    const userAgent = req.headers['user-agent'] ?? '';
    const resource = request.kind === 'resource' ? (request.resource?.key ?? request.plural) : request.path;
    const subresource = request.kind === 'resource' ? (request.subresource ?? '') : '';
    counters?.record({ verb: request.verb, resource, subresource, userAgent });
    try {
      const decision = state.faults?.decide(request.verb, userAgent);
      if (decision && decision.delayMs > 0) await new Promise((r) => setTimeout(r, decision.delayMs));
      if (decision?.error) throw decision.error;
      const user = await admit(state.access, req, request);
      if (request.kind === 'nonResource') handleNonResource(req, res, request);
      else await handleResource(state, req, res, request, user);
    } catch (error) {
      sendError(res, error);
    }
  };
}

/** Creates the API server for `store`; call listen() to start it. */
export function createApiServer(store: ClusterStore, options: ApiServerOptions = {}): ApiServer {
  const state: ServerState = {
    store,
    faults: options.faults,
    snapshots: new ListSnapshots(),
    now: options.now ?? (() => new Date()),
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    watches: new Set(),
    defaultWatchTimeoutMs: watchLifetime(options),
    access: options.access ?? OPEN_ACCESS,
    counters: options.counters,
  };
  const handle = (req: IncomingMessage, res: ServerResponse) =>
    void listener(state, options.counters)(req, res);
  const server: Server = options.tls
    ? createTlsServer({ keepAlive: true, cert: options.tls.cert, key: options.tls.key }, handle)
    : createServer({ keepAlive: true }, handle);
  const scheme = options.tls ? 'https' : 'http';
  server.keepAliveTimeout = 65_000;
  return {
    listen(port = 0): Promise<string> {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          const address = server.address() as AddressInfo;
          resolve(`${scheme}://127.0.0.1:${address.port}`);
        });
      });
    },
    close(): Promise<void> {
      for (const drop of [...state.watches]) drop();
      return new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
