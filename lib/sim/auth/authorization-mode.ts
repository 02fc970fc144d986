/**
 * kube-apiserver's `--authorization-mode` for the simulated cluster: `AlwaysAllow` (the default,
 * as the simulator always was) or `RBAC`, which authorizes every request against the Roles,
 * ClusterRoles and bindings in the cluster's store (system:masters first, as upstream's
 * privileged-group authorizer).
 */
import type { ClusterStore } from '../storage/store.ts';
import { type AccessControl, OPEN_ACCESS } from './access-control.ts';
import { impersonatedUser } from './impersonation.ts';
import { rbacAuthorizer } from './rbac-authorizer.ts';
import { storeRbacPolicy } from './rbac-store-policy.ts';

/** The authorization modes the simulator knows, as kube-apiserver spells them. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'RBAC'] as const;

/** One of AUTHORIZATION_MODES. */
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** Whether `value` names an authorization mode the simulator knows. */
export function isAuthorizationMode(value: string): value is AuthorizationMode {
  return (AUTHORIZATION_MODES as readonly string[]).includes(value);
}

/**
 * `access` (its authentication, or the simulator's default administrator when undefined) with the
 * authorization `mode` asks for: unchanged for AlwaysAllow or no mode; for RBAC, authorized over
 * the RBAC objects of `store`, and with impersonation (`kubectl --as`) authorized the same way.
 */
export function withAuthorizationMode(
  access: AccessControl | undefined,
  mode: AuthorizationMode | undefined,
  store: ClusterStore,
): AccessControl | undefined {
  if (mode !== 'RBAC') return access;
  const base = access ?? OPEN_ACCESS;
  const authorize = rbacAuthorizer(storeRbacPolicy(store));
  return {
    authenticate: async (req) => impersonatedUser(req, await base.authenticate(req), authorize),
    authorize,
  };
}
