/**
 * The cluster and namespace a command works on, chosen as kubectl chooses them: the kubeconfig of
 * `--kubeconfig`, else client-node's default loading (`KUBECONFIG`, its files merged; then
 * `~/.kube/config`; then the in-cluster service account); the context of `--context`, else the
 * current one; the namespace of `-n/--namespace`, else the context's, else `default`.
 */
import { existsSync } from 'node:fs';
import { connectionFromKubeConfig, loadKubeConfig } from '../kube/connection/kubeconfig-connection.ts';
import { INVALID_REQUEST_TIMEOUT, parseRequestTimeout } from './go-duration.ts';
import { KubectlError } from './kubectl-error.ts';
import { PluginApi } from './plugin-api.ts';

/** The global flags that choose the cluster. */
export interface ClusterFlags {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  /** `--request-timeout`, as written. */
  readonly requestTimeout?: string | undefined;
}

/** The API to talk to and the namespace to act in. */
export interface PluginCluster {
  readonly api: PluginApi;
  readonly namespace: string;
}

/** The cluster of `flags`; throws kubectl's errors for a missing kubeconfig file or context. */
export function pluginCluster(flags: Readonly<ClusterFlags>): PluginCluster {
  if (flags.kubeconfig !== undefined && !existsSync(flags.kubeconfig)) {
    throw new KubectlError(`stat ${flags.kubeconfig}: no such file or directory`);
  }
  let kc: ReturnType<typeof loadKubeConfig>;
  try {
    kc = loadKubeConfig(flags.kubeconfig === undefined ? {} : { path: flags.kubeconfig });
  } catch (error) {
    const why = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new KubectlError(`error loading config file ${JSON.stringify(flags.kubeconfig ?? '')}: ${why}`, {
      cause: error,
    });
  }
  if (flags.context !== undefined) {
    // kubectl first asks the kubeconfig for the namespace unless -n gave it: clientcmd's
    // ConfirmUsable then fails, a configuration error; with -n, building the client config does.
    if (!kc.getContextObject(flags.context)) {
      if (flags.namespace) throw new KubectlError(`context ${JSON.stringify(flags.context)} does not exist`);
      throw new KubectlError(
        `Error in configuration: context was not found for specified context: ${flags.context}`,
        { bare: true },
      );
    }
    kc.setCurrentContext(flags.context);
  }
  // clientcmd reads the timeout after it has confirmed the context (DirectClientConfig.ClientConfig).
  const timeoutMs = parseRequestTimeout(flags.requestTimeout ?? '');
  if (timeoutMs === undefined) throw new KubectlError(INVALID_REQUEST_TIMEOUT);
  const contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const namespace = flags.namespace || contextNamespace || 'default';
  return { api: new PluginApi(connectionFromKubeConfig(kc), timeoutMs), namespace };
}
