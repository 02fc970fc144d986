import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type ManagedKind, managedKinds } from '../../lib/kube/managed-kind.ts';
import { FUNCTION_GROUPS } from '../../lib/kube/rbac/function-groups.ts';
import { rbacObjects, renderRbacManifest } from '../../lib/kube/rbac/rbac-manifest.ts';

const checkedIn = readFileSync(new URL('../../infra/k8s/rbac.yaml', import.meta.url), 'utf8');

/** The API groups with rights on `daemonsets` (and its subresources) in `kind`'s manifest. */
function daemonSetGroups(kind: ManagedKind): string[] {
  const rules = rbacObjects(kind).flatMap(({ role }) => role.rules ?? []);
  const onDaemonSets = rules.filter((rule) => rule.resources?.some((r) => r.split('/')[0] === 'daemonsets'));
  return [...new Set(onDaemonSets.flatMap((rule) => rule.apiGroups ?? []))];
}

describe('the RBAC manifest', () => {
  it('is checked in as infra/k8s/rbac.yaml for the default kind, for those who kubectl apply it', () => {
    expect(checkedIn).toBe(renderRbacManifest('everynode.dev/v1'));
  });

  it.each(managedKinds)('renders for %s YAML that parses back to the typed objects', (kind) => {
    const documents = parseAllDocuments(renderRbacManifest(kind)).map((d) => d.toJS());
    expect(documents).toEqual(
      JSON.parse(JSON.stringify(rbacObjects(kind).flatMap((o) => [o.role, o.binding]))),
    );
  });

  it.each([
    { kind: 'everynode.dev/v1' as const, groups: ['everynode.dev'] },
    { kind: 'apps/v1' as const, groups: ['apps'] },
  ])('grants rights on the DaemonSets of $kind only', ({ kind, groups }) => {
    expect(daemonSetGroups(kind)).toEqual(groups);
  });

  it('binds each function to its own group, and grants no events.k8s.io', () => {
    const objects = rbacObjects('everynode.dev/v1');
    expect(objects.map(({ binding }) => [binding.metadata?.name, binding.subjects])).toEqual([
      [
        'everynode-relay',
        [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: FUNCTION_GROUPS.relay }],
      ],
      [
        'everynode-router',
        [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: FUNCTION_GROUPS.router }],
      ],
      [
        'everynode-reconcile',
        [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: FUNCTION_GROUPS.reconcile }],
      ],
    ]);
    const groups = objects.flatMap(({ role }) => (role.rules ?? []).flatMap((rule) => rule.apiGroups ?? []));
    expect(groups).not.toContain('events.k8s.io');
  });

  it('labels every object so install can prune what it no longer renders', () => {
    for (const { role, binding } of rbacObjects('apps/v1')) {
      for (const obj of [role, binding])
        expect(obj.metadata?.labels).toEqual({
          'app.kubernetes.io/name': 'everynode',
          'app.kubernetes.io/part-of': 'everynode',
        });
    }
  });
});
