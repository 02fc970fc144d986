/**
 * The adapter of the KubePort over `@kubernetes/client-node` 1.4.0.
 */

import type { ModelName } from '../codec/object-codec.ts';
import type { KubeConnection } from '../connection/kube-connection.ts';
import type { KubePort, WatchEvent, WatchedObjects, WatchedResource, WatchOptions } from '../kube-port.ts';
import { DEFAULT_MANAGED_KIND, type ManagedKind, managedResourceOf } from '../managed-kind.ts';
import { kubeConfigurationFor, type RequestHooks } from '../requests/kube-apis.ts';
import { type WatchRequest, watchEvents } from '../requests/kube-watch.ts';
import { RequestBudget } from '../requests/request-budget.ts';
import { processRequestCounter, type RequestCounter } from '../requests/request-counter.ts';
import { clusterIdentityOperations } from './cluster-identity.ts';
import { daemonSetOperations } from './daemon-set-operations.ts';
import { nodeOperations } from './node-operations.ts';
import { podOperations } from './pod-operations.ts';
import { podStatusOperations } from './pod-status-operations.ts';
import { revisionOperations } from './revision-operations.ts';

/** How to build the adapter. */
export interface KubePortOptions {
  readonly connection: KubeConnection;
  /** The DaemonSet resource managed (default everynode.dev/v1). */
  readonly managedKind?: ManagedKind;
  /** The process's request budget; by default 50 requests/s with a burst of 100. Share one per process. */
  readonly budget?: RequestBudget;
  /** Where requests are counted; by default the process counter. */
  readonly counter?: RequestCounter;
  /** The User-Agent of every request (default `everynode`); one per component, e.g. `everynode/reconcile`. */
  readonly userAgent?: string;
}

const watchTargets: Record<
  Exclude<WatchedResource, 'daemonsets'>,
  { base: string; model: ModelName; kind: string; apiVersion: string }
> = {
  nodes: { base: '/api/v1', model: 'V1Node', kind: 'Node', apiVersion: 'v1' },
  pods: { base: '/api/v1', model: 'V1Pod', kind: 'Pod', apiVersion: 'v1' },
  controllerrevisions: {
    base: '/apis/apps/v1',
    model: 'V1ControllerRevision',
    kind: 'ControllerRevision',
    apiVersion: 'apps/v1',
  },
};

function watchRequestFor(
  resource: WatchedResource,
  kind: ManagedKind,
  options: Readonly<WatchOptions>,
): WatchRequest {
  const { group, version } = managedResourceOf(kind);
  const target =
    resource === 'daemonsets'
      ? {
          base: `/apis/${group}/${version}`,
          model: 'V1DaemonSet' as const,
          kind: 'DaemonSet',
          apiVersion: kind,
        }
      : watchTargets[resource];
  // Nodes are cluster-scoped; the others are watched in one namespace or in all of them.
  const scope =
    options.namespace && resource !== 'nodes' ? `/namespaces/${encodeURIComponent(options.namespace)}` : '';
  return {
    path: `${target.base}${scope}/${resource}`,
    query: {
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      timeoutSeconds: options.timeoutSeconds === undefined ? undefined : String(options.timeoutSeconds),
    },
    model: target.model,
    apiVersion: target.apiVersion,
    kind: target.kind,
    signal: options.signal,
    ...(options.onOpen ? { onOpen: options.onOpen } : {}),
    doing: `watching ${resource}${scope ? ` in namespace ${options.namespace}` : ''} from resourceVersion ${options.resourceVersion}`,
  };
}

/**
 * The KubePort over `connection`: every request waits for `budget`, is counted by verb in
 * `counter`, goes through the connection's keep-alive agent with fresh credentials, and fails with
 * a typed error saying what was being done.
 */
export function createKubePort(options: Readonly<KubePortOptions>): KubePort {
  const managedKind = options.managedKind ?? DEFAULT_MANAGED_KIND;
  const hooks: RequestHooks = {
    budget: options.budget ?? new RequestBudget({ requestsPerSecond: 50, burst: 100 }),
    counter: options.counter ?? processRequestCounter,
    userAgent: options.userAgent ?? 'everynode',
  };
  const configuration = kubeConfigurationFor(options.connection, hooks);
  return {
    managedKind,
    ...daemonSetOperations(configuration, managedKind),
    ...podOperations(configuration),
    ...podStatusOperations(configuration),
    ...nodeOperations(configuration),
    ...revisionOperations(configuration),
    ...clusterIdentityOperations(configuration, options.connection),
    watch<R extends WatchedResource>(resource: R, watchOptions: WatchOptions) {
      const request = watchRequestFor(resource, managedKind, watchOptions);
      return watchEvents<WatchedObjects[R]>(options.connection, hooks, request) as AsyncIterable<
        WatchEvent<WatchedObjects[R]>
      >;
    },
  };
}
