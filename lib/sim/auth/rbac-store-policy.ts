/**
 * The RBAC policy of a running simulated cluster: the Roles, ClusterRoles and bindings in its
 * store, read at each decision as upstream's RBAC authorizer reads its informer caches, so a
 * binding applied with kubectl takes effect on the next request.
 */
import type { V1ClusterRole, V1ClusterRoleBinding, V1Role, V1RoleBinding } from '@kubernetes/client-node';
import type { ClusterStore } from '../storage/store.ts';
import type { RbacPolicy } from './rbac-authorizer.ts';

/** The policy `store` holds now (each call reads the stored objects; nothing is cached). */
export function storeRbacPolicy(store: ClusterStore): RbacPolicy {
  return {
    clusterRoleBindings: () =>
      store.view(
        'rbac.authorization.k8s.io/clusterrolebindings',
      ) as unknown as readonly V1ClusterRoleBinding[],
    roleBindings: (namespace) =>
      store.view('rbac.authorization.k8s.io/rolebindings', {
        namespace,
      }) as unknown as readonly V1RoleBinding[],
    clusterRole: (name) =>
      store.peek('rbac.authorization.k8s.io/clusterroles', undefined, name) as unknown as
        | V1ClusterRole
        | undefined,
    role: (namespace, name) =>
      store.peek('rbac.authorization.k8s.io/roles', namespace, name) as unknown as V1Role | undefined,
  };
}
