/**
 * EKS bearer tokens made in-process from the function's IAM credentials, as
 * `aws eks get-token` / aws-iam-authenticator (pkg/token/token.go GetWithSTS) make them: a
 * presigned STS GetCallerIdentity URL with the cluster name signed in the `x-k8s-aws-id` header,
 * `k8s-aws-v1.` + base64url (no padding) of that URL. EKS asks STS who signed it and maps the
 * role to Kubernetes groups (aws-auth or access entries).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { AwsCall } from '../../config/function-aws-calls.ts';
import { EverynodeError } from '../../errors/everynode-error.ts';

/** The prefix of every EKS token (aws-iam-authenticator v1PrefixToken). */
export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header naming the cluster, signed into the URL (aws-iam-authenticator clusterIDHeader). */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** Seconds the presigned URL says it is valid; EKS itself accepts a token for 15 minutes. */
export const PRESIGNED_URL_EXPIRES_SECONDS = 60;
/** How long a token is reused: under 14 minutes, safely inside EKS's 15 (aws-iam-authenticator refreshes at 14). */
export const EKS_TOKEN_CACHE_MS = 13 * 60 * 1000;

/**
 * The AWS call behind every EKS token, for the functions' tables of AWS calls: signed here, sent by
 * EKS. STS answers GetCallerIdentity without any IAM permission; EKS then maps the role through its
 * access entry (infra/constructs/cluster-access.ts).
 */
export const EKS_TOKEN_AWS_CALL: AwsCall = {
  operation: 'GetCallerIdentity',
  action: 'sts:GetCallerIdentity',
  resource: { kind: 'eks-access-entry' },
  purpose: 'EKS bearer tokens for the Kubernetes API: a presigned URL EKS sends to STS',
};

/** What a token is made from. */
export interface EksTokenRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity;
  readonly signingDate: Date;
}

/** The STS host of `region` (regional endpoint; China regions live under amazonaws.com.cn). */
export function stsHostname(region: string): string {
  return `sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/**
 * The EKS bearer token for `clusterName`, signed with `credentials` at `signingDate`:
 * `k8s-aws-v1.` + base64url without padding of the presigned
 * `https://sts.<region>.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60&…`
 * whose signed headers are `host;x-k8s-aws-id`. Deterministic for fixed inputs. Never log it.
 */
export async function eksToken(request: Readonly<EksTokenRequest>): Promise<string> {
  const hostname = stsHostname(request.region);
  const signer = new SignatureV4({
    service: 'sts',
    region: request.region,
    credentials: request.credentials,
    sha256: Sha256,
    uriEscapePath: true,
  });
  const unsigned = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, [CLUSTER_ID_HEADER]: request.clusterName },
  });
  const signed = await signer.presign(unsigned, {
    expiresIn: PRESIGNED_URL_EXPIRES_SECONDS,
    signingDate: request.signingDate,
  });
  const query = Object.entries(signed.query ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => [key, v ?? ''] as const))
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

/** Options of {@link EksTokenSource}. */
export interface EksTokenSourceOptions {
  readonly clusterName: string;
  readonly region: string;
  /** The AWS credential provider (the default provider chain on Lambda). */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The clock; injected by tests. */
  readonly now?: () => Date;
}

/** Thrown when no token can be made (no credentials, no region). Retryable: credentials come back. */
export class EksTokenError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, true, options);
  }
}

/**
 * Tokens for one cluster, each reused for {@link EKS_TOKEN_CACHE_MS} (less when the credentials
 * expire sooner), so a warm function signs once every 13 minutes. Concurrent callers share one
 * signing. The token is kept in a private field, which `console.log` and util.inspect never show.
 */
export class EksTokenSource {
  readonly #options: EksTokenSourceOptions;
  #cached: { token: string; validUntil: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(options: Readonly<EksTokenSourceOptions>) {
    this.#options = options;
  }

  /** A token valid for at least a minute more. */
  async token(): Promise<string> {
    const now = (this.#options.now ?? (() => new Date()))();
    if (this.#cached && now.getTime() < this.#cached.validUntil) return this.#cached.token;
    this.#pending ??= this.#refresh(now).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #refresh(now: Date): Promise<string> {
    const { clusterName, region } = this.#options;
    let credentials: AwsCredentialIdentity;
    try {
      credentials = await this.#options.credentials();
    } catch (error) {
      throw new EksTokenError(`making an EKS token for cluster ${clusterName}: no AWS credentials`, {
        cause: error,
      });
    }
    const token = await eksToken({ clusterName, region, credentials, signingDate: now });
    const credentialsEnd = credentials.expiration
      ? credentials.expiration.getTime() - 60_000
      : Number.POSITIVE_INFINITY;
    this.#cached = { token, validUntil: Math.min(now.getTime() + EKS_TOKEN_CACHE_MS, credentialsEnd) };
    return token;
  }
}
