/**
 * The connection a function's configuration names: EKS with tokens made in-process (on AWS), or a
 * kubeconfig (locally and in tests).
 */
import type { ClusterConfig } from './cluster-config.ts';
import { connectionToEksCluster } from './eks-connection.ts';
import type { KubeConnection } from './kube-connection.ts';
import { connectionFromKubeConfig, loadKubeConfig } from './kubeconfig-connection.ts';

/**
 * The connection the configuration names: EKS with in-process tokens, or a kubeconfig. For
 * processes that read kubeconfigs anyway (`everynode run`, tests); a Lambda function uses
 * `loadClusterConnection` (load-cluster-connection.ts), which loads the kubeconfig support only
 * when it needs it.
 */
export function connectionOf(cluster: Readonly<ClusterConfig>): KubeConnection {
  if (cluster.type === 'kubeconfig')
    return connectionFromKubeConfig(loadKubeConfig(cluster.path ? { path: cluster.path } : {}));
  return connectionToEksCluster(cluster);
}
