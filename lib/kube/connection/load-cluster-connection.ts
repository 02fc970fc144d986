/**
 * The connection a function's configuration names, as a Lambda function builds it at init: EKS
 * with tokens made in-process, or — locally and in tests only — a kubeconfig.
 *
 * The kubeconfig support (client-node's KubeConfig, which loads all of client-node's models, a
 * YAML parser, proxy agents and auth plugins) is loaded only for a kubeconfig. The Lambda bundles
 * leave it out altogether: infra/constructs/pipeline-functions.ts defines
 * `process.env.EVERYNODE_EKS_ONLY` as `"true"` when bundling, so esbuild drops the kubeconfig branch
 * and everything only it imports. On AWS the stack always names an EKS endpoint.
 */
import { FunctionConfigError } from '../../config/function-config-error.ts';
import type { ClusterConfig } from './cluster-config.ts';
import { connectionToEksCluster } from './eks-connection.ts';
import type { KubeConnection } from './kube-connection.ts';

type KubeconfigCluster = Extract<ClusterConfig, { type: 'kubeconfig' }>;

async function kubeconfigConnection(cluster: Readonly<KubeconfigCluster>): Promise<KubeConnection> {
  const { connectionFromKubeConfig, loadKubeConfig } = await import('./kubeconfig-connection.ts');
  return connectionFromKubeConfig(loadKubeConfig(cluster.path ? { path: cluster.path } : {}));
}

function eksOnly(): never {
  throw new FunctionConfigError(
    'reading the cluster configuration: this bundle reaches its cluster through EKS only, and EVERYNODE_CLUSTER_ENDPOINT is not set',
  );
}

/** The connection the configuration names; a kubeconfig's support is loaded on demand. */
export async function loadClusterConnection(cluster: Readonly<ClusterConfig>): Promise<KubeConnection> {
  if (cluster.type === 'eks') return connectionToEksCluster(cluster);
  return process.env.EVERYNODE_EKS_ONLY === 'true' ? eksOnly() : kubeconfigConnection(cluster);
}
