/**
 * The client-node API clients of one connection, with everything every request needs: the
 * process's keep-alive agent, fresh credentials, the request budget, the request count and our
 * User-Agent.
 */
import {
  AppsV1Api,
  type Configuration,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  type Middleware,
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
  type SecurityAuthentication,
  ServerConfiguration,
} from '@kubernetes/client-node';
import {
  CoreV1ApiRequestFactory,
  CoreV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import type { KubeConnection } from './kube-connection.ts';
import type { RequestBudget } from './request-budget.ts';
import { type RequestCounter, requestVerb } from './request-counter.ts';

/** What every request goes through. */
export interface RequestHooks {
  readonly budget: RequestBudget;
  readonly counter: RequestCounter;
  /** Sent as User-Agent, so API Priority and Fairness and audit logs can tell our components apart. */
  readonly userAgent: string;
}

/** The API clients the adapter uses. */
export interface KubeApis {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly custom: CustomObjectsApi;
  /** The configuration the clients share, and CoreV1's request factory and response processor (decoded-call.ts). */
  readonly configuration: Configuration;
  readonly coreRequests: CoreV1ApiRequestFactory;
  readonly coreResponses: CoreV1ApiResponseProcessor;
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

/** The CoreV1, AppsV1 and CustomObjects clients of `connection`, every request going through `hooks`. */
export function kubeApisFor(connection: KubeConnection, hooks: Readonly<RequestHooks>): KubeApis {
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(connection.server.replace(/\/+$/, ''), {}),
    authMethods: { default: authenticationFor(connection) },
    promiseMiddleware: [requestMiddleware(hooks)],
  });
  return {
    core: new CoreV1Api(configuration),
    apps: new AppsV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
    configuration,
    coreRequests: new CoreV1ApiRequestFactory(configuration),
    coreResponses: new CoreV1ApiResponseProcessor(),
  };
}

/**
 * client-node options adding `query` parameters and `headers` to one call (client-node has no
 * parameter for `resourceVersion` on GET of a single object, nor for a patch's Content-Type).
 * Appended after the process middleware, so the budget is taken first.
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
