/**
 * User impersonation (`kubectl --as`, `--as-group`, `--as-uid`), ported from
 * staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go WithImpersonation: the
 * requesting user must be authorized to `impersonate` each user (or service account), group and
 * uid asked for; the request then runs as that user, in those groups plus system:authenticated.
 * Impersonate-Extra-* headers are not supported (the simulator's users carry no extras).
 */
import type { IncomingMessage } from 'node:http';
import { SimApiError } from '../schema/api-error.ts';
import type { AuthorizationDecision } from './access-control.ts';
import { forbidden } from './access-denied.ts';
import type { RequestAttributes } from './request-attributes.ts';
import { ALL_AUTHENTICATED, type UserInfo } from './user-info.ts';

const anonymous = 'system:anonymous';
const allUnauthenticated = 'system:unauthenticated';
const serviceAccountPrefix = 'system:serviceaccount:';

/** The values of header `name`, each repeated header apart (groups may contain commas). */
function headerValues(req: IncomingMessage, name: string): string[] {
  return req.headersDistinct[name] ?? [];
}

/** What every impersonation check shares: `requester` asking to `impersonate` a core resource. */
function impersonation(requester: UserInfo) {
  return {
    user: requester,
    verb: 'impersonate',
    resourceRequest: true,
    apiGroup: '',
    subresource: '',
    namespace: '',
    path: '',
  };
}

/** What impersonating `username` is authorized as: a service account, or a user. */
function actingAsUser(requester: UserInfo, username: string): RequestAttributes {
  const common = impersonation(requester);
  if (username.startsWith(serviceAccountPrefix)) {
    const [namespace = '', name = ''] = username.slice(serviceAccountPrefix.length).split(':');
    return { ...common, resource: 'serviceaccounts', namespace, name };
  }
  return { ...common, resource: 'users', name: username };
}

/** The groups the impersonated user ends up in (the filter adds the service account and all-users groups). */
function impersonatedGroups(username: string, groups: readonly string[]): string[] {
  const all = [...groups];
  if (username.startsWith(serviceAccountPrefix)) {
    const namespace = username.slice(serviceAccountPrefix.length).split(':')[0] ?? '';
    all.push('system:serviceaccounts', `system:serviceaccounts:${namespace}`);
  }
  if (username === anonymous) {
    if (!all.includes(allUnauthenticated)) all.push(allUnauthenticated);
  } else if (!all.includes(ALL_AUTHENTICATED) && !all.includes(allUnauthenticated))
    all.push(ALL_AUTHENTICATED);
  return all;
}

/**
 * The user `req` acts as: `requester` itself without impersonation headers, else the impersonated
 * user once `authorize` allowed `requester` to impersonate each part of it. Throws the 403 upstream
 * answers for the first part not allowed, or a 500 for groups or a uid without a user.
 */
export function impersonatedUser(
  req: IncomingMessage,
  requester: UserInfo,
  authorize: (attributes: Readonly<RequestAttributes>) => AuthorizationDecision,
): UserInfo {
  const [username] = headerValues(req, 'impersonate-user');
  const groups = headerValues(req, 'impersonate-group');
  const [uid] = headerValues(req, 'impersonate-uid');
  if (username === undefined) {
    if (groups.length === 0 && uid === undefined) return requester;
    throw SimApiError.internal('requested impersonation of groups or a uid without impersonating a user');
  }
  const asked: RequestAttributes[] = [actingAsUser(requester, username)];
  const common = impersonation(requester);
  for (const group of groups) asked.push({ ...common, resource: 'groups', name: group });
  if (uid !== undefined)
    asked.push({ ...common, apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });
  for (const attributes of asked) {
    const decision = authorize(attributes);
    if (!decision.allowed) throw forbidden(attributes, decision.reason);
  }
  return {
    name: username,
    ...(uid === undefined ? {} : { uid }),
    groups: impersonatedGroups(username, groups),
  };
}
