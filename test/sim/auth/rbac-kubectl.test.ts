import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl, type KubectlResult, kubectlFor, tableRows } from '../../support/kubectl-harness.ts';
import { aUser } from '../../support/rbac-builders.ts';
import { type RbacSim, startRbacSim } from '../../support/rbac-sim.ts';

const binary = findKubectl();
const manifests = new URL('../../../infra/k8s/', import.meta.url).pathname;

describe.runIf(binary)('kubectl against --authorization-mode RBAC', () => {
  let sim: RbacSim;
  let as: Record<
    'admin' | 'relay' | 'reconcile' | 'nobody',
    (args: readonly string[]) => Promise<KubectlResult>
  >;
  beforeAll(async () => {
    sim = await startRbacSim({
      relay: aUser('everynode-relay', 'everynode:relay'),
      reconcile: aUser('everynode-fn', 'everynode:reconcile'),
      nobody: aUser('nobody'),
    });
    const run = (user: string) => kubectlFor(binary ?? 'kubectl', { kubeconfig: sim.kubeconfigOf(user) });
    as = { admin: run('admin'), relay: run('relay'), reconcile: run('reconcile'), nobody: run('nobody') };
    const applied = await as.admin(['apply', '-f', `${manifests}rbac.yaml`]);
    expect(applied.stdout).toBe(
      ['relay', 'router', 'reconcile']
        .map(
          (fn) =>
            `clusterrole.rbac.authorization.k8s.io/everynode-${fn} created\n` +
            `clusterrolebinding.rbac.authorization.k8s.io/everynode-${fn} created\n`,
        )
        .join(''),
    );
  });
  afterAll(() => sim.close());

  it('lists the ClusterRoles, the default ones with those of infra/k8s/rbac.yaml', async () => {
    const rows = tableRows((await as.admin(['get', 'clusterroles'])).stdout);
    expect(rows[0]).toEqual(['NAME', 'CREATED AT']);
    expect(rows.slice(1).map((r) => r[0])).toEqual([
      'cluster-admin',
      'everynode-reconcile',
      'everynode-relay',
      'everynode-router',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
    ]);
    expect(rows[2]?.[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('prints ClusterRoleBindings with their role and subjects', async () => {
    const rows = tableRows(
      (await as.admin(['get', 'clusterrolebinding', 'everynode-reconcile', '-o', 'wide'])).stdout,
    );
    expect(rows[0]).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect(rows[1]).toEqual([
      'everynode-reconcile',
      'ClusterRole/everynode-reconcile',
      expect.any(String),
      'everynode:reconcile',
    ]);
  });

  it('creates and describes a RoleBinding', async () => {
    const args = ['create', 'rolebinding', 'ops', '--clusterrole=everynode-reconcile', '--group=ops'];
    await as.admin([...args, '--serviceaccount=default:builder', '-n', 'default']);
    const described = (await as.admin(['describe', 'rolebinding', 'ops', '-n', 'default'])).stdout;
    expect(described).toMatch(/Role:\n\s+Kind:\s+ClusterRole\n\s+Name:\s+everynode-reconcile\n/);
    expect(described).toMatch(/Group\s+ops\s*\n/);
    expect(described).toMatch(/ServiceAccount\s+builder\s+default/);
  });

  it.each([
    { user: 'reconcile', args: ['list', 'pods'], answer: 'yes' },
    { user: 'reconcile', args: ['create', 'pods', '-n', 'kube-system'], answer: 'yes' },
    { user: 'relay', args: ['create', 'pods', '-n', 'kube-system'], answer: 'no' },
    { user: 'relay', args: ['get', 'namespaces/kube-system'], answer: 'yes' },
    { user: 'relay', args: ['get', 'namespaces/default'], answer: 'no' },
    { user: 'reconcile', args: ['get', 'namespaces/kube-system'], answer: 'no' },
    {
      user: 'reconcile',
      args: ['update', 'daemonsets.everynode.dev', '--subresource=status', '-n', 'a'],
      answer: 'yes',
    },
    {
      user: 'reconcile',
      args: ['update', 'daemonsets.apps', '--subresource=status', '-n', 'a'],
      answer: 'no',
    },
    { user: 'reconcile', args: ['patch', 'daemonsets.everynode.dev', '-n', 'a'], answer: 'no' },
    { user: 'reconcile', args: ['delete', 'nodes'], answer: 'no' },
    { user: 'relay', args: ['get', '/version'], answer: 'yes' },
    { user: 'nobody', args: ['list', 'pods'], answer: 'no' },
    { user: 'admin', args: ['delete', 'nodes'], answer: 'yes' },
  ] as const)('kubectl auth can-i as $user: $args.0 $args.1 → $answer', async ({ user, args, answer }) => {
    const result = await as[user](['auth', 'can-i', ...args]);
    expect(result.stdout.trim()).toBe(answer);
    expect(result.code).toBe(answer === 'yes' ? 0 : 1);
  });

  it('shows kubectl the 403 a real cluster answers', async () => {
    const result = await as.relay(['get', 'namespaces']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Error from server (Forbidden): namespaces is forbidden: User "everynode-relay" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });
});
