/**
 * The HTTP agent every request to the API server goes through. client-node 1.x builds a new
 * `https.Agent` for every request (KubeConfig.applySecurityAuthentication → createAgent), so
 * every request opens a new TCP + TLS connection; we hand it one keep-alive agent per process
 * instead (our SecurityAuthentication sets it on each RequestContext, see `kube-apis.ts`).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/** TLS settings of the connection to the API server. */
export interface TlsOptions {
  /** PEM of the certificate authorities to trust (the cluster CA). */
  readonly ca?: string | Buffer;
  /** Client certificate and key (PEM), for kubeconfig users authenticated by certificate. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** False only for `insecure-skip-tls-verify: true`. */
  readonly rejectUnauthorized?: boolean;
  /** `tls-server-name` of the kubeconfig cluster. */
  readonly servername?: string;
}

/** Sockets per origin at most: the request budget, not the socket count, is what limits load. */
const MAX_SOCKETS = 64;

const agents = new Map<string, http.Agent>();

function keyOf(protocol: string, tls: Readonly<TlsOptions>): string {
  const hash = createHash('sha256');
  for (const part of [tls.ca, tls.cert, tls.key, String(tls.rejectUnauthorized), tls.servername]) {
    hash.update(part ?? '').update('\0');
  }
  return `${protocol}${hash.digest('hex')}`;
}

/**
 * The keep-alive agent of this process for `server` (an `http:` or `https:` URL) with `tls`:
 * created on the first call and returned by every later call with the same settings, so all
 * clients of the process share its connections. Idle sockets are reused last-in first-out (the
 * most recently used socket is the least likely to have been closed by the server).
 */
export function keepAliveAgent(server: string, tls: Readonly<TlsOptions> = {}): http.Agent {
  const protocol = new URL(server).protocol;
  const key = keyOf(protocol, tls);
  const existing = agents.get(key);
  if (existing) return existing;
  const common = {
    keepAlive: true,
    keepAliveMsecs: 30_000,
    maxSockets: MAX_SOCKETS,
    scheduling: 'lifo' as const,
  };
  const agent = protocol === 'http:' ? new http.Agent(common) : new https.Agent({ ...common, ...tls });
  agents.set(key, agent);
  return agent;
}
