/**
 * The connection on AWS: endpoint and CA from the environment, an EKS token made in-process from
 * the function's IAM credentials (no kubeconfig, no `aws` CLI in a Lambda function).
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { ClusterConfig } from './cluster-config.ts';
import { EksTokenSource } from './eks-token.ts';
import { keepAliveAgent } from './keep-alive-agent.ts';
import type { KubeConnection } from './kube-connection.ts';

/** What an EKS connection is made from. */
export interface EksConnectionOptions {
  /** The cluster's API endpoint (`aws eks describe-cluster` `endpoint`). */
  readonly endpoint: string;
  /** The cluster CA: PEM, or base64 of PEM as EKS gives `certificateAuthority.data`. */
  readonly ca: string;
  readonly tokens: EksTokenSource;
}

/** The PEM of `ca`, whether it is PEM already or base64 of PEM. */
export function pemOf(ca: string): string {
  const trimmed = ca.trim();
  return trimmed.startsWith('-----BEGIN') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8');
}

/** The connection to an EKS cluster: its endpoint, the process's keep-alive agent trusting its CA, EKS tokens. */
export function connectionFromEks(options: Readonly<EksConnectionOptions>): KubeConnection {
  return {
    server: options.endpoint,
    agent: keepAliveAgent(options.endpoint, { ca: pemOf(options.ca) }),
    description: `EKS endpoint ${options.endpoint}`,
    authHeaders: async () => ({ Authorization: `Bearer ${await options.tokens.token()}` }),
  };
}

/**
 * The default AWS credential provider chain (environment, web identity, container, instance
 * metadata…; on Lambda the environment variables). `@aws-sdk/credential-provider-node` comes with
 * `@aws-sdk/client-sqs`; it is loaded only when an EKS connection is made.
 */
export function defaultAwsCredentials(): AwsCredentialIdentityProvider {
  let provider: Promise<AwsCredentialIdentityProvider> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await provider)();
  };
}

/**
 * The connection to the EKS cluster a function's configuration names, with tokens signed with the
 * function's credentials from the default AWS provider chain.
 */
export function connectionToEksCluster(
  cluster: Readonly<Extract<ClusterConfig, { type: 'eks' }>>,
): KubeConnection {
  const tokens = new EksTokenSource({
    clusterName: cluster.name,
    region: cluster.region,
    credentials: defaultAwsCredentials(),
  });
  return connectionFromEks({ endpoint: cluster.endpoint, ca: cluster.ca, tokens });
}
