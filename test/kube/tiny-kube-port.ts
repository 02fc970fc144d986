/**
 * The real adapter pointed at a tiny server through a kubeconfig, as the tests use it.
 */

import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { RequestCounter } from '../../lib/kube/requests/request-counter.ts';

/** A kubeconfig naming `server` with a static token, as the simulated cluster writes one. */
export function kubeconfigFor(server: string, token = 'test-token'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: tiny\n  cluster:\n    server: ${server}\n    insecure-skip-tls-verify: true`,
    'users:',
    `- name: tester\n  user:\n    token: ${token}`,
    'contexts:',
    '- name: tiny\n  context:\n    cluster: tiny\n    user: tester',
    'current-context: tiny',
    '',
  ].join('\n');
}

/** Options of {@link tinyKubePort}. */
export interface TinyPortOptions {
  managedKind?: ManagedKind;
  budget?: RequestBudget;
}

/** The adapter over `server` with its own counter and a generous budget unless one is given. */
export function tinyKubePort(
  server: string,
  options: TinyPortOptions = {},
): { port: KubePort; counter: RequestCounter } {
  const counter = new RequestCounter();
  const connection = connectionFromKubeConfig(loadKubeConfig({ yaml: kubeconfigFor(server) }));
  const port = createKubePort({
    connection,
    counter,
    managedKind: options.managedKind ?? 'apps/v1',
    budget: options.budget ?? new RequestBudget({ requestsPerSecond: 1000, burst: 1000 }),
    userAgent: 'everynode/test',
  });
  return { port, counter };
}
