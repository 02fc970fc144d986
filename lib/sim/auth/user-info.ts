/**
 * Who a request comes from, as kube-apiserver's authenticators hand it to authorization
 * (k8s.io/apiserver pkg/authentication/user.Info: name, uid, groups).
 */

/** An authenticated (or anonymous) user. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
}

/** The group every authenticated user is in (user.AllAuthenticated). */
export const ALL_AUTHENTICATED = 'system:authenticated';

/** The group of the superuser: RBAC allows it everything (user.SystemPrivilegedGroup). */
export const SYSTEM_MASTERS = 'system:masters';

/** The user of a request without credentials when anonymous requests are allowed (the default). */
export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** The user of every request when the simulator runs without authentication: an administrator. */
export const SIM_ADMIN: UserInfo = {
  name: 'everynode-sim-admin',
  groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED],
};
