/**
 * The authenticator kube-apiserver builds from its options (pkg/kubeapiserver/authenticator
 * Config.New), for the two kinds of credentials the simulator checks: the bearer token of the
 * request (bearertoken.Authenticator) is looked up in the static token file, then verified as an
 * EKS token (the aws-iam-authenticator webhook); a user found gets `system:authenticated`
 * (group.AuthenticatedGroupAdder). A request without a bearer token is anonymous
 * (`--anonymous-auth=true`, the default); a bearer token nobody accepts is a 401, never anonymous
 * (union.NewFailOnError).
 */
import type { IncomingMessage } from 'node:http';
import { unauthorized } from './access-denied.ts';
import { type EksAccessEntry, EksTokenRejected, eksUser } from './eks-access-entries.ts';
import { type EksTokenVerifierOptions, verifyEksToken } from './eks-token-verifier.ts';
import type { TokenTable } from './token-file.ts';
import { ALL_AUTHENTICATED, ANONYMOUS_USER, type UserInfo } from './user-info.ts';

/** EKS authentication: the cluster's name, the keys the simulated STS knows, the access entries. */
export interface EksAuthenticationOptions extends EksTokenVerifierOptions {
  readonly accessEntries: readonly EksAccessEntry[];
}

/** What the authenticator accepts. */
export interface RequestAuthenticatorOptions {
  /** Static bearer tokens (`--token-auth-file`). */
  readonly tokens?: TokenTable;
  /** EKS tokens (`k8s-aws-v1.…`). */
  readonly eks?: EksAuthenticationOptions;
}

/** The group of anonymous requests (user.AllUnauthenticated). */
const ALL_UNAUTHENTICATED = 'system:unauthenticated';

/**
 * The bearer token of `req`'s Authorization header (bearertoken.go): `Bearer <token>`, the scheme
 * in any case; undefined for no header, another scheme or an empty token, which leave the request
 * to the next authenticator (here: anonymous).
 */
export function bearerToken(req: Readonly<Pick<IncomingMessage, 'headers'>>): string | undefined {
  const header = (req.headers.authorization ?? '').trim();
  const [scheme = '', token = ''] = header.split(' ');
  if (scheme.toLowerCase() !== 'bearer' || token === '') return undefined;
  return token;
}

/** `user` in system:authenticated (AuthenticatedGroupAdder: unless anonymous or already in either group). */
function withAllAuthenticated(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER.name) return user;
  if (user.groups.some((group) => group === ALL_AUTHENTICATED || group === ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/** The user of `token` by the token file, else as an EKS token; undefined when neither accepts it. */
async function userOfToken(
  token: string,
  options: Readonly<RequestAuthenticatorOptions>,
): Promise<UserInfo | undefined> {
  const fromFile = options.tokens?.get(token);
  if (fromFile) return fromFile;
  if (!options.eks) return undefined;
  try {
    return eksUser(await verifyEksToken(token, options.eks), options.eks.accessEntries);
  } catch (error) {
    if (error instanceof EksTokenRejected) return undefined;
    throw error;
  }
}

/**
 * The authenticate step of an AccessControl: resolves to the user of a request's bearer token, to
 * the anonymous user for a request without one; throws the 401 `unauthorized()` for a bearer token
 * that no authenticator accepts.
 */
export function createRequestAuthenticator(
  options: Readonly<RequestAuthenticatorOptions>,
): (req: IncomingMessage) => Promise<UserInfo> {
  return async (req) => {
    const token = bearerToken(req);
    if (token === undefined) return ANONYMOUS_USER;
    const user = await userOfToken(token, options);
    if (!user) throw unauthorized();
    return withAllAuthenticated(user);
  };
}
