/**
 * `kubectl auth can-i` for subresources against --authorization-mode RBAC, as upstream's RuleAllows
 * answers: `pods` grants no `pods/exec`, `pods/exec` only that subresource, `*\/status` the status
 * of every resource and `*` everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl, type KubectlResult, kubectlFor } from '../../support/kubectl-harness.ts';
import { aUser } from '../../support/rbac-builders.ts';
import { type RbacSim, startRbacSim } from '../../support/rbac-sim.ts';

const binary = findKubectl();

describe.runIf(binary)('kubectl auth can-i with subresources', () => {
  let sim: RbacSim;
  let as: Record<'pods' | 'exec' | 'status' | 'star', (args: readonly string[]) => Promise<KubectlResult>>;
  beforeAll(async () => {
    sim = await startRbacSim({
      pods: aUser('pod-user'),
      exec: aUser('exec-user'),
      status: aUser('status-user'),
      star: aUser('star-user'),
    });
    const run = (user: string) => kubectlFor(binary ?? 'kubectl', { kubeconfig: sim.kubeconfigOf(user) });
    as = { pods: run('pods'), exec: run('exec'), status: run('status'), star: run('star') };
    const role = (name: string, rules: unknown[]) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace: 'a' },
      rules,
    });
    const binding = (name: string, user: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: 'a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    const verbs = ['get', 'create', 'update'];
    const objects = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
      role('pods', [{ apiGroups: ['', 'apps'], resources: ['pods', 'daemonsets'], verbs }]),
      binding('pods', 'pod-user'),
      role('exec', [{ apiGroups: [''], resources: ['pods/exec'], verbs }]),
      binding('exec', 'exec-user'),
      role('status', [{ apiGroups: ['', 'apps'], resources: ['*/status'], verbs }]),
      binding('status', 'status-user'),
      role('star', [{ apiGroups: ['*'], resources: ['*'], verbs }]),
      binding('star', 'star-user'),
    ];
    const admin = kubectlFor(binary ?? 'kubectl', { kubeconfig: sim.kubeconfigOf('admin') });
    const applied = await admin(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    );
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(() => sim?.close());

  it.each([
    { user: 'pods', args: ['create', 'pods'], answer: 'yes' },
    { user: 'pods', args: ['create', 'pods', '--subresource=exec'], answer: 'no' },
    { user: 'pods', args: ['create', 'pods', '--subresource=eviction'], answer: 'no' },
    { user: 'pods', args: ['get', 'pods', '--subresource=status'], answer: 'no' },
    { user: 'pods', args: ['update', 'daemonsets.apps', '--subresource=status'], answer: 'no' },
    { user: 'exec', args: ['create', 'pods', '--subresource=exec'], answer: 'yes' },
    { user: 'exec', args: ['create', 'pods'], answer: 'no' },
    { user: 'exec', args: ['create', 'pods', '--subresource=eviction'], answer: 'no' },
    { user: 'status', args: ['get', 'pods', '--subresource=status'], answer: 'yes' },
    { user: 'status', args: ['update', 'daemonsets.apps', '--subresource=status'], answer: 'yes' },
    { user: 'status', args: ['get', 'pods'], answer: 'no' },
    { user: 'status', args: ['create', 'pods', '--subresource=exec'], answer: 'no' },
    { user: 'star', args: ['create', 'pods', '--subresource=exec'], answer: 'yes' },
    { user: 'star', args: ['create', 'pods', '--subresource=eviction'], answer: 'yes' },
    { user: 'star', args: ['update', 'daemonsets.apps', '--subresource=status'], answer: 'yes' },
  ] as const)('as $user: can-i $args → $answer', async ({ user, args, answer }) => {
    const result = await as[user](['auth', 'can-i', ...args, '-n', 'a']);
    expect(result.stdout.trim(), result.stderr).toBe(answer);
    expect(result.code).toBe(answer === 'yes' ? 0 : 1);
  });
});
