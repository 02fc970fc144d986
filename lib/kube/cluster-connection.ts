/**
 * The connection a function's configuration names: EKS with tokens made in-process (on AWS), or a
 * kubeconfig (locally and in tests).
 */
import type { ClusterConfig } from './cluster-config.ts';
import { connectionFromEks, defaultAwsCredentials } from './eks-connection.ts';
import { EksTokenSource } from './eks-token.ts';
import type { KubeConnection } from './kube-connection.ts';
import { connectionFromKubeConfig, loadKubeConfig } from './kubeconfig-connection.ts';

/** The connection the configuration names: EKS with in-process tokens, or a kubeconfig. */
export function connectionOf(cluster: Readonly<ClusterConfig>): KubeConnection {
  if (cluster.type === 'kubeconfig')
    return connectionFromKubeConfig(loadKubeConfig(cluster.path ? { path: cluster.path } : {}));
  const tokens = new EksTokenSource({
    clusterName: cluster.name,
    region: cluster.region,
    credentials: defaultAwsCredentials(),
  });
  return connectionFromEks({ endpoint: cluster.endpoint, ca: cluster.ca, tokens });
}
