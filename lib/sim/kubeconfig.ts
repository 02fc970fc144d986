/**
 * Kubeconfigs for the simulated cluster that kubectl and @kubernetes/client-node use unchanged: a
 * static bearer token user, and either https:// with the cluster's CA in
 * `certificate-authority-data` (verification on, as on a real cluster) or plain http:// on
 * 127.0.0.1 (both accept it; `insecure-skip-tls-verify` is set there, as no CA is known).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

/** Options of kubeconfigFor. */
export interface KubeconfigOptions {
  /** User (and context) name; default `sim-admin`. */
  user?: string;
  /** Bearer token sent by clients; default `sim-token`, which a simulator without authentication accepts. */
  token?: string;
  /** PEM of the CA that signed the server's certificate; when set, clients verify the server with it. */
  caCertificate?: string;
  /** Namespace of the context; default `default`. */
  namespace?: string;
}

/** How clients trust the server: its CA when known, else no verification (plain HTTP needs none). */
function trustOf(caCertificate: string | undefined): Record<string, string | boolean> {
  if (caCertificate === undefined) return { 'insecure-skip-tls-verify': true };
  return { 'certificate-authority-data': Buffer.from(caCertificate, 'utf8').toString('base64') };
}

/** A kubeconfig YAML whose current context talks to the simulated API server at `url`. */
export function kubeconfigFor(url: string, options: Readonly<KubeconfigOptions> = {}): string {
  const user = options.user ?? 'sim-admin';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'everynode-sim', cluster: { server: url, ...trustOf(options.caCertificate) } }],
    users: [{ name: user, user: { token: options.token ?? 'sim-token' } }],
    contexts: [
      {
        name: 'everynode-sim',
        context: { cluster: 'everynode-sim', user, namespace: options.namespace ?? 'default' },
      },
    ],
    'current-context': 'everynode-sim',
    preferences: {},
  });
}

/** Writes kubeconfigFor(url) to `path` (mode 0600, as kubectl writes kubeconfigs), making its folder if need be. */
export async function writeKubeconfig(
  path: string,
  url: string,
  options: Readonly<KubeconfigOptions> = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigFor(url, options), { mode: 0o600 });
}
