/**
 * A connection from the unprefixed variables `CLUSTER_ENDPOINT`, `CLUSTER_NAME` and `CLUSTER_CA`,
 * else from the kubeconfig kubectl would use. Apart from eks-connection.ts, so that the functions'
 * EKS connection never loads client-node's kubeconfig support (load-cluster-connection.ts).
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { connectionFromEks, defaultAwsCredentials } from './eks-connection.ts';
import { EksTokenSource } from './eks-token.ts';
import type { KubeConnection } from './kube-connection.ts';
import { connectionFromKubeConfig, KubeConfigError, loadKubeConfig } from './kubeconfig-connection.ts';

type Environment = Readonly<Record<string, string | undefined>>;

function required(env: Environment, name: string): string {
  const value = env[name];
  if (!value) throw new KubeConfigError(`connecting to EKS: environment variable ${name} is not set`);
  return value;
}

/**
 * The connection the environment describes: EKS when `CLUSTER_ENDPOINT` is set (with
 * `CLUSTER_NAME`, `CLUSTER_CA` and `AWS_REGION` or `AWS_DEFAULT_REGION`; credentials from
 * `credentials`, by default the AWS provider chain), else the kubeconfig kubectl would use
 * (`KUBECONFIG`, `~/.kube/config`, in-cluster).
 */
export function connectionFromEnvironment(
  env: Environment,
  credentials: AwsCredentialIdentityProvider = defaultAwsCredentials(),
): KubeConnection {
  if (!env.CLUSTER_ENDPOINT) return connectionFromKubeConfig(loadKubeConfig());
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!region)
    throw new KubeConfigError('connecting to EKS: neither AWS_REGION nor AWS_DEFAULT_REGION is set');
  const tokens = new EksTokenSource({ clusterName: required(env, 'CLUSTER_NAME'), region, credentials });
  return connectionFromEks({ endpoint: env.CLUSTER_ENDPOINT, ca: required(env, 'CLUSTER_CA'), tokens });
}
