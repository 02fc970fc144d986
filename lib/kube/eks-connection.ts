/**
 * The connection on AWS: endpoint and CA from the environment, an EKS token made in-process from
 * the function's IAM credentials (no kubeconfig, no `aws` CLI in a Lambda function).
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { EksTokenSource } from './eks-token.ts';
import { keepAliveAgent } from './keep-alive-agent.ts';
import type { KubeConnection } from './kube-connection.ts';
import { connectionFromKubeConfig, KubeConfigError, loadKubeConfig } from './kubeconfig-connection.ts';

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
