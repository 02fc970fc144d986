import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../lib/cli/cli-args.ts';
import { runRunCommand } from '../../lib/cli/run-command.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'everynode-run-least-privilege-'));
const stop = new AbortController();
const out: string[] = [];
const io: CliIo = {
  stdout: (t) => out.push(t),
  stderr: (t) => out.push(t),
  isTTY: false,
  env: {},
  stopSignal: stop.signal,
};
let exit: Promise<number>;

beforeAll(async () => {
  const args = [
    '--sim-nodes',
    '2',
    '--least-privilege',
    '--no-demo',
    '--manage',
    'apps/v1',
    '--state-dir',
    stateDir,
  ];
  exit = runRunCommand([...args, '--log-level', 'WARN'], io);
  const deadline = Date.now() + 30_000;
  while (!out.join('').includes('export KUBECONFIG=')) {
    if (Date.now() > deadline) throw new Error(`everynode run was not ready:\n${out.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 40_000);

afterAll(async () => {
  stop.abort();
  expect(await exit).toBe(0);
});

function configOf(kubeconfigPath: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
  return config;
}

/** Creates a pod as the user of `kubeconfigPath`; resolves to the HTTP status. */
async function createPodAs(kubeconfigPath: string, name: string): Promise<number> {
  const config = configOf(kubeconfigPath);
  // What a client sends: the server sets uid, resourceVersion, creationTimestamp and status.
  const { apiVersion, kind, spec } = aPod(name);
  const body = { apiVersion, kind, metadata: { name, namespace: 'default' }, spec };
  try {
    await config.makeApiClient(CoreV1Api).createNamespacedPod({ namespace: 'default', body });
    return 201;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

describe('everynode run --least-privilege', () => {
  it.each([
    { name: "the relay's kubeconfig cannot create pods", file: 'kubeconfig-relay', status: 403 },
    {
      name: "the reconciler's kubeconfig can, as its ClusterRole grants",
      file: 'kubeconfig-reconcile',
      status: 201,
    },
    { name: 'the printed kubeconfig is the administrator’s and can', file: 'kubeconfig', status: 201 },
  ])('$name', async ({ file, status }) => {
    expect(await createPodAs(join(stateDir, file), `probe-${file}`)).toBe(status);
  });

  it('prints the administrator’s kubeconfig and says the functions run as their own users', () => {
    expect(out.join('')).toContain(`export KUBECONFIG=${join(stateDir, 'kubeconfig')}`);
    expect(out.join('')).toContain('each function as its own user (RBAC)');
  });

  // Last: it takes the reconciler's rights away from the shared run.
  it('runs reconcile as its own user: without its binding, reconciling a DaemonSet is forbidden', async () => {
    const admin = configOf(join(stateDir, 'kubeconfig'));
    await admin
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteClusterRoleBinding({ name: 'everynode-reconcile' });
    const { apiVersion, kind, spec } = aDaemonSet('unbound');
    const body = { apiVersion, kind, metadata: { name: 'unbound', namespace: 'default' }, spec };
    await admin.makeApiClient(AppsV1Api).createNamespacedDaemonSet({ namespace: 'default', body });
    const deadline = Date.now() + 30_000;
    while (!/forbidden|403/i.test(out.join(''))) {
      if (Date.now() > deadline) throw new Error(`reconcile was never refused:\n${out.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 40_000);
});
