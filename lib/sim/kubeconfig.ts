/**
 * Kubeconfigs for the simulated cluster that kubectl and @kubernetes/client-node use unchanged:
 * plain http:// on 127.0.0.1 (both accept it; `insecure-skip-tls-verify` is set so a later https
 * listener would work too) and a static bearer token user.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

/** Options of kubeconfigFor. */
export interface KubeconfigOptions {
  /** User (and context) name; default `sim-admin`. */
  user?: string;
  /** Bearer token sent by clients; default `sim-token`. The simulator accepts any token. */
  token?: string;
  /** Namespace of the context; default `default`. */
  namespace?: string;
}

/** A kubeconfig YAML whose current context talks to the simulated API server at `url`. */
export function kubeconfigFor(url: string, options: Readonly<KubeconfigOptions> = {}): string {
  const user = options.user ?? 'sim-admin';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'everynode-sim', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
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
