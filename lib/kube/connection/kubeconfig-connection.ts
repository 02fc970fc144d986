/**
 * A connection from a kubeconfig: a file, `KUBECONFIG`, `~/.kube/config`, or the in-cluster
 * service account — whatever `kubectl` would use.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { EverynodeError } from '../../errors/everynode-error.ts';
import { keepAliveAgent, type TlsOptions } from './keep-alive-agent.ts';
import type { KubeConnection } from './kube-connection.ts';

/** Thrown when the kubeconfig names no usable cluster. Not retryable: the configuration is wrong. */
export class KubeConfigError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}

/** Where to read a kubeconfig from; by default as kubectl does (KUBECONFIG, ~/.kube/config, in-cluster). */
export interface KubeConfigSource {
  /** A kubeconfig file. */
  readonly path?: string;
  /** A kubeconfig document (YAML or JSON), e.g. the simulated cluster's. */
  readonly yaml?: string;
}

/** The kubeconfig of `source`; throws a KubeConfigError when it cannot be read. */
export function loadKubeConfig(source: Readonly<KubeConfigSource> = {}): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (source.yaml !== undefined) kc.loadFromString(source.yaml);
    else if (source.path !== undefined) kc.loadFromFile(source.path);
    else kc.loadFromDefault();
  } catch (error) {
    throw new KubeConfigError(`loading the kubeconfig ${source.path ?? ''}`.trimEnd(), { cause: error });
  }
  return kc;
}

function bytes(data: string | undefined, file: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  return file ? readFileSync(file) : undefined;
}

function tlsOf(kc: KubeConfig): TlsOptions {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  return {
    ca: bytes(cluster?.caData, cluster?.caFile),
    cert: bytes(user?.certData, user?.certFile),
    key: bytes(user?.keyData, user?.keyFile),
    ...(cluster?.skipTLSVerify ? { rejectUnauthorized: false } : {}),
    ...(cluster?.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
}

/** Headers from client-node's own authenticators (exec plugins, OIDC, the in-cluster token file). */
async function providerHeaders(kc: KubeConfig): Promise<Record<string, string>> {
  const options: { headers?: Record<string, unknown> } = {};
  await kc.applyToHTTPSOptions(options);
  return Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k, String(v)]));
}

function staticHeaders(kc: KubeConfig): Record<string, string> {
  const user = kc.getCurrentUser();
  const headers: Record<string, string> = {};
  if (user?.token) headers.Authorization = `Bearer ${user.token}`;
  else if (user?.username) {
    headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  }
  if (user?.impersonateUser) headers['Impersonate-User'] = user.impersonateUser;
  return headers;
}

/**
 * The connection of `kc`'s current context: its server, the process's keep-alive agent with the
 * cluster's CA, client certificate and TLS settings, and its user's credentials — a static token
 * or basic auth as is, exec plugins / auth providers / the in-cluster token file through
 * client-node's authenticators on every request (they cache and refresh their tokens).
 */
export function connectionFromKubeConfig(kc: KubeConfig): KubeConnection {
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new KubeConfigError(`reading the kubeconfig: context ${kc.getCurrentContext()} names no cluster`);
  const user = kc.getCurrentUser();
  const dynamic = Boolean(user?.exec || user?.authProvider);
  const fixed = staticHeaders(kc);
  return {
    server: cluster.server,
    agent: keepAliveAgent(cluster.server, tlsOf(kc)),
    description: `kubeconfig context ${kc.getCurrentContext()} (${cluster.server})`,
    authHeaders: dynamic ? () => providerHeaders(kc) : async () => fixed,
  };
}
