/**
 * Who may use the simulated API server, and for what: an authenticator (the request's
 * credentials → a user, or 401) and an authorizer (the request's attributes → allowed, or 403
 * with the reason), run for every request before its handler, as kube-apiserver's
 * WithAuthentication and WithAuthorization filters do. Without options the simulator answers every
 * request as an administrator, as it always has.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestAttributes } from './request-attributes.ts';
import { SIM_ADMIN, type UserInfo } from './user-info.ts';

/** An authorizer's decision; `reason` is appended to the 403 message when not allowed. */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason?: string;
}

/** Authentication and authorization of the simulated API server. */
export interface AccessControl {
  /** The user `req` authenticates as; throws a 401 SimApiError for credentials that are not valid. */
  authenticate(req: IncomingMessage): UserInfo | Promise<UserInfo>;
  /** Whether the request described by `attributes` is allowed. */
  authorize(attributes: Readonly<RequestAttributes>): AuthorizationDecision;
}

/** Every request is the administrator's and is allowed. */
export const OPEN_ACCESS: AccessControl = {
  authenticate: () => SIM_ADMIN,
  authorize: () => ({ allowed: true }),
};
