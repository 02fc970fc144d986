/**
 * client-node's request configuration of one connection, with everything every request needs: the
 * process's keep-alive agent, fresh credentials, the request budget, the request count and our
 * User-Agent. The adapter's operations send their requests through it (kube-request.ts).
 */
import type {
  Configuration,
  Middleware,
  ObservableMiddleware,
  RequestContext,
  ResponseContext,
  SecurityAuthentication,
} from '@kubernetes/client-node';
// Values come from client-node's own modules, not its index: the index also loads what a function
// never uses (exec, attach, port-forward, cp, informers, kubeconfig proxies) at every cold start.
import { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
import { Observable } from '@kubernetes/client-node/dist/gen/rxjsStub.js';
import { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
import type { KubeConnection } from '../connection/kube-connection.ts';
import type { RequestBudget } from './request-budget.ts';
import { type RequestCounter, requestVerb } from './request-counter.ts';

/** What every request goes through. */
export interface RequestHooks {
  readonly budget: RequestBudget;
  readonly counter: RequestCounter;
  /** Sent as User-Agent, so API Priority and Fairness and audit logs can tell our components apart. */
  readonly userAgent: string;
}

/**
 * Credentials and the keep-alive agent for each request. client-node calls this after building the
 * request (KubeConfig's own version creates a new agent per request, hence a new socket).
 */
function authenticationFor(connection: KubeConnection): SecurityAuthentication {
  return {
    getName: () => 'everynode',
    applySecurityAuthentication: async (context: RequestContext) => {
      for (const [key, value] of Object.entries(await connection.authHeaders()))
        context.setHeaderParam(key, value);
      context.setAgent(connection.agent);
    },
  };
}

/**
 * The middleware run before every request is sent: waits for the budget, counts the request by
 * verb and sets the User-Agent. One middleware only: client-node reverses its middleware array in
 * place on every response, which would reorder several.
 */
export function requestMiddleware(hooks: Readonly<RequestHooks>): Middleware {
  return {
    pre: async (context: RequestContext) => {
      await hooks.budget.take();
      hooks.counter.count(requestVerb(context.getHttpMethod(), context.getUrl()));
      context.setHeaderParam('User-Agent', hooks.userAgent);
      return context;
    },
    post: async (context: ResponseContext) => context,
  };
}

/** The request configuration of `connection`, every request going through `hooks`. */
export function kubeConfigurationFor(
  connection: KubeConnection,
  hooks: Readonly<RequestHooks>,
): Configuration {
  return createConfiguration({
    baseServer: new ServerConfiguration(connection.server.replace(/\/+$/, ''), {}),
    authMethods: { default: authenticationFor(connection) },
    promiseMiddleware: [requestMiddleware(hooks)],
  });
}

/**
 * client-node options adding `query` parameters and `headers` to one call of its generated API
 * clients (they have no parameter for `resourceVersion` on GET of a single object, nor for a
 * patch's Content-Type), for tools and tests that use them. Appended after the configuration's
 * middleware, so the budget is taken first.
 */
export function callOptions(extra: { query?: Record<string, string>; headers?: Record<string, string> }) {
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => {
      for (const [key, value] of Object.entries(extra.query ?? {})) context.setQueryParam(key, value);
      for (const [key, value] of Object.entries(extra.headers ?? {})) context.setHeaderParam(key, value);
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' as const };
}
