/**
 * The default RBAC objects every cluster has (plugin/pkg/auth/authorizer/rbac/bootstrappolicy
 * policy.go, created by kube-apiserver's rbac/bootstrap-roles post-start hook) that tools rely on:
 * `cluster-admin` for `system:masters`, discovery and `kubectl auth can-i` for every authenticated
 * user, and health and version for everyone.
 */
import type { ClusterStore, KubeObject } from '../storage/store.ts';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS } from './user-info.ts';

const rbacVersion = 'rbac.authorization.k8s.io/v1';
const allUnauthenticated = 'system:unauthenticated';

/** What the bootstrap objects carry (bootstrappolicy.Label and the reconciler's autoupdate annotation). */
const bootstrapMetadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

/** A rule on non-resource URLs (rbacv1helpers.NewRule(verbs...).URLs(...)). */
const urlRule = (verbs: string[], urls: string[]) => ({ verbs, nonResourceURLs: urls });

/** A rule on resources (rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...)). */
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[]) => ({
  verbs,
  apiGroups,
  resources,
});

function clusterRole(name: string, rules: readonly object[]): KubeObject {
  return { apiVersion: rbacVersion, kind: 'ClusterRole', metadata: bootstrapMetadata(name), rules };
}

function groupBinding(role: string, groups: readonly string[]): KubeObject {
  return {
    apiVersion: rbacVersion,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMetadata(role),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name })),
  };
}

/** The bootstrap ClusterRoles the simulator creates. */
export function bootstrapClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [resourceRule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
    clusterRole('system:discovery', [
      urlRule(
        ['get'],
        [
          '/livez',
          '/readyz',
          '/healthz',
          '/version',
          '/version/',
          '/openapi',
          '/openapi/*',
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
        ],
      ),
    ]),
    clusterRole('system:basic-user', [
      resourceRule(
        ['create'],
        ['authorization.k8s.io'],
        ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      ),
      resourceRule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [
      urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/']),
    ]),
  ];
}

/** The bootstrap ClusterRoleBindings of those roles. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  return [
    groupBinding('cluster-admin', [SYSTEM_MASTERS]),
    groupBinding('system:discovery', [ALL_AUTHENTICATED]),
    groupBinding('system:basic-user', [ALL_AUTHENTICATED]),
    groupBinding('system:public-info-viewer', [ALL_AUTHENTICATED, allUnauthenticated]),
  ];
}

/** Creates the bootstrap roles and bindings in `store`, keeping any that already exist. */
export function seedBootstrapPolicy(store: ClusterStore): void {
  const seed = (
    key: 'rbac.authorization.k8s.io/clusterroles' | 'rbac.authorization.k8s.io/clusterrolebindings',
    objects: KubeObject[],
  ) => {
    for (const obj of objects)
      if (!store.peek(key, undefined, obj.metadata.name ?? '')) store.create(key, obj);
  };
  seed('rbac.authorization.k8s.io/clusterroles', bootstrapClusterRoles());
  seed('rbac.authorization.k8s.io/clusterrolebindings', bootstrapClusterRoleBindings());
}
