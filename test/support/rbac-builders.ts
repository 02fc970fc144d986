/**
 * Fixture builders for RBAC tests: roles, bindings, subjects and the request attributes an
 * authorizer decides on, each a fresh object with the fields a case cares about as arguments.
 */
import type {
  RbacV1Subject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
} from '@kubernetes/client-node';
import type { RequestAttributes } from '../../lib/sim/auth/request-attributes.ts';
import type { UserInfo } from '../../lib/sim/auth/user-info.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/** A ClusterRole `name` with `rules`. */
export function aClusterRole(name: string, ...rules: V1PolicyRule[]): V1ClusterRole {
  return { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name }, rules };
}

/** A Role `name` in `namespace` with `rules`. */
export function aRole(namespace: string, name: string, ...rules: V1PolicyRule[]): V1Role {
  return { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { namespace, name }, rules };
}

/** A ClusterRoleBinding `name` of ClusterRole `role` to `subjects`. */
export function aClusterRoleBinding(
  name: string,
  role: string,
  ...subjects: RbacV1Subject[]
): V1ClusterRoleBinding {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
    subjects,
  };
}

/** A RoleBinding `name` in `namespace` of the `kind` `role` to `subjects`. */
export function aRoleBinding(
  namespace: string,
  name: string,
  role: { kind: 'Role' | 'ClusterRole'; name: string },
  ...subjects: RbacV1Subject[]
): V1RoleBinding {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'RoleBinding',
    metadata: { namespace, name },
    roleRef: { apiGroup: rbacGroup, ...role },
    subjects,
  };
}

/** A User subject. */
export const userSubject = (name: string): RbacV1Subject => ({ apiGroup: rbacGroup, kind: 'User', name });

/** A Group subject. */
export const groupSubject = (name: string): RbacV1Subject => ({ apiGroup: rbacGroup, kind: 'Group', name });

/** A ServiceAccount subject, in `namespace` when given. */
export const serviceAccountSubject = (name: string, namespace?: string): RbacV1Subject => ({
  kind: 'ServiceAccount',
  name,
  ...(namespace === undefined ? {} : { namespace }),
});

/** An authenticated user `name` in `groups` (and system:authenticated). */
export function aUser(name: string, ...groups: string[]): UserInfo {
  return { name, groups: [...groups, 'system:authenticated'] };
}

/** A resource request of `user`: `verb` on `resource` (`pods`, `pods/status`) with the rest as given. */
export function aResourceRequest(
  user: UserInfo,
  verb: string,
  resource: string,
  options: { group?: string; namespace?: string; name?: string } = {},
): RequestAttributes {
  const [plural = '', subresource = ''] = resource.split('/');
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup: options.group ?? '',
    resource: plural,
    subresource,
    namespace: options.namespace ?? '',
    name: options.name ?? '',
    path: '',
  };
}

/** A non-resource request of `user`: `verb` on `path`. */
export function aPathRequest(user: UserInfo, verb: string, path: string): RequestAttributes {
  const none = { apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  return { user, verb, resourceRequest: false, ...none, path };
}
