import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInstallCommand } from '../../lib/cli/install-command.ts';
import { runSimCommand } from '../../lib/cli/sim-command.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { findKubectl, kubectlFor, tableRows } from '../support/kubectl-harness.ts';

const binary = findKubectl();
const dir = mkdtempSync(join(tmpdir(), 'everynode-install-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `everynode install` with `args`, kubectl's cache and HOME in the test's folder. */
async function install(args: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const env = { HOME: dir, PATH: `${join(binary ?? 'kubectl', '..')}:${process.env.PATH ?? ''}` };
  const code = await runInstallCommand(args, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    isTTY: false,
    env,
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const rbacCreated = ['relay', 'router', 'reconcile'].flatMap((fn) => [
  `clusterrole.rbac.authorization.k8s.io/everynode-${fn} created`,
  `clusterrolebinding.rbac.authorization.k8s.io/everynode-${fn} created`,
]);
const created = [
  'customresourcedefinition.apiextensions.k8s.io/daemonsets.everynode.dev created',
  ...rbacCreated,
];

/** The single-group RBAC of earlier versions, which install must prune. */
const oldRbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: everynode-controller
  labels:
    app.kubernetes.io/name: everynode
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: everynode-controller
  labels:
    app.kubernetes.io/name: everynode
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: everynode-controller
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: everynode:controller
`;
const pruned = [
  'clusterrole.rbac.authorization.k8s.io/everynode-controller pruned',
  'clusterrolebinding.rbac.authorization.k8s.io/everynode-controller pruned',
];

describe.runIf(binary).each([
  { name: 'everynode sim as it starts by default', options: {} },
  { name: 'everynode sim --authorization-mode RBAC', options: { authorizationMode: 'RBAC' as const } },
])('everynode install against $name', ({ name, options }) => {
  let cluster: SimCluster | undefined;
  afterAll(() => cluster?.stop());

  it('applies the CRD and RBAC, then finds them unchanged, as on a real cluster', async () => {
    const kubeconfig = join(dir, `${name.replace(/\W+/g, '-')}.kubeconfig`);
    cluster = await startSimCluster({ nodes: 0, kubeconfigPath: kubeconfig, ...options });
    const dryRun = await install(['--kubeconfig', kubeconfig, '--dry-run']);
    expect(dryRun).toMatchObject({ code: 0, stderr: '' });
    expect(dryRun.stdout).toBe(`${created.map((line) => `${line} (server dry run)`).join('\n')}\n`);

    expect(await install(['--kubeconfig', kubeconfig])).toEqual({
      code: 0,
      stdout: `${created.join('\n')}\n`,
      stderr: '',
    });
    const again = await install(['--kubeconfig', kubeconfig]);
    expect(again.stdout).toBe(`${created.map((line) => line.replace(/created$/, 'unchanged')).join('\n')}\n`);

    const kubectl = kubectlFor(binary ?? 'kubectl', cluster);
    const rows = tableRows((await kubectl(['get', 'crd', 'daemonsets.everynode.dev'])).stdout);
    expect(rows[0]).toEqual(['NAME', 'CREATED AT']);
    expect(rows[1]?.[0]).toBe('daemonsets.everynode.dev');
    const established = await kubectl([
      'wait',
      '--for=condition=Established',
      'crd/daemonsets.everynode.dev',
      '--timeout=5s',
    ]);
    expect(established.stdout).toContain('condition met');
    for (const fn of ['relay', 'router', 'reconcile']) {
      const bound = await kubectl([
        'get',
        'clusterrolebinding',
        `everynode-${fn}`,
        '-o',
        'jsonpath={.subjects[0].name}',
      ]);
      expect(bound.stdout).toBe(`everynode:${fn}`);
    }
  });
});

describe.runIf(binary)('everynode install over an earlier version, and --manage', () => {
  let cluster: SimCluster | undefined;
  afterAll(() => cluster?.stop());

  it('prunes the single-group RBAC once the per-function one is applied, and says so', async () => {
    const kubeconfig = join(dir, 'upgrade.kubeconfig');
    cluster = await startSimCluster({ nodes: 0, kubeconfigPath: kubeconfig });
    const kubectl = kubectlFor(binary ?? 'kubectl', cluster);
    const old = join(dir, 'old-rbac.yaml');
    writeFileSync(old, oldRbac);
    await kubectl(['apply', '-f', old]);
    const dryRun = await install(['--kubeconfig', kubeconfig, '--dry-run']);
    expect(dryRun.stdout).toBe(
      `${[...created, ...pruned].map((line) => line.replace(/(created|pruned)$/, '$1 (server dry run)')).join('\n')}\n`,
    );
    expect((await kubectl(['get', 'clusterrolebinding', 'everynode-controller', '-o', 'name'])).stdout).toBe(
      'clusterrolebinding.rbac.authorization.k8s.io/everynode-controller\n',
    );
    expect(await install(['--kubeconfig', kubeconfig])).toEqual({
      code: 0,
      stdout: `${[...created, ...pruned].join('\n')}\n`,
      stderr: '',
    });
    const left = await kubectl([
      'get',
      'clusterroles,clusterrolebindings',
      '-l',
      'app.kubernetes.io/name=everynode',
      '-o',
      'name',
    ]);
    expect(left.stdout.trim().split('\n').sort()).toEqual(
      rbacCreated.map((line) => line.replace(/ created$/, '')).sort(),
    );
  });

  it('renders --manage apps/v1 with rights on apps DaemonSets only, and no CRD', async () => {
    const kubeconfig = join(dir, 'upgrade.kubeconfig');
    const applied = await install(['--kubeconfig', kubeconfig, '--manage', 'apps/v1']);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    // The roles change kind; the bindings stay as they were.
    const reapplied = rbacCreated.map((line) =>
      line.replace(/created$/, line.includes('binding') ? 'unchanged' : 'configured'),
    );
    expect(applied.stdout).toBe(`${reapplied.join('\n')}\n`);
    const kubectl = kubectlFor(binary ?? 'kubectl', cluster ?? { kubeconfig: '' });
    const groups = await kubectl([
      'get',
      'clusterrole',
      'everynode-reconcile',
      '-o',
      'jsonpath={.rules[*].apiGroups}',
    ]);
    expect(groups.stdout).toContain('"apps"');
    expect(groups.stdout).not.toContain('everynode.dev');
  });

  it('refuses a kind it does not manage with a usage error', async () => {
    const result = await install(['--manage', 'extensions/v1beta1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--manage must be everynode.dev/v1 or apps/v1, got 'extensions/v1beta1'");
  });
});

describe.runIf(binary)('everynode sim --authorization-mode RBAC --tls --token-auth-file', () => {
  it('lets the admin install, and then a token in everynode:relay do what the relay is granted', async () => {
    const kubeconfig = join(dir, 'rbac-tls.kubeconfig');
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'fn-token,everynode-fn,1001,"everynode:relay"\n');
    const out: string[] = [];
    const stop = new AbortController();
    const args = ['--nodes', '1', '--kubeconfig', kubeconfig, '--tls', '--token-auth-file', tokens];
    const done = runSimCommand([...args, '--authorization-mode', 'RBAC'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      stopSignal: stop.signal,
    });
    try {
      await until(() => out.join('').includes('Press Ctrl-C'));
      const fn = kubectlFor(binary ?? 'kubectl', {
        kubeconfig: readFileSync(kubeconfig, 'utf8').replace(/token: .*/, 'token: fn-token'),
      });
      expect((await fn(['auth', 'can-i', 'list', 'nodes'])).stdout).toBe('no\n');
      expect(await install(['--kubeconfig', kubeconfig])).toMatchObject({
        code: 0,
        stdout: `${created.join('\n')}\n`,
      });
      expect((await fn(['auth', 'can-i', 'list', 'nodes'])).stdout).toBe('yes\n');
      expect((await fn(['get', 'nodes', '-o', 'name'])).stdout).toMatch(/^node\//);
      expect((await fn(['auth', 'can-i', 'create', 'pods'])).stdout).toBe('no\n');
      const forbidden = await fn(['get', 'namespaces']);
      expect(forbidden.stderr).toContain(
        'namespaces is forbidden: User "everynode-fn" cannot list resource "namespaces" in API group "" at the cluster scope',
      );
    } finally {
      stop.abort();
      await done;
    }
  });
});

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
