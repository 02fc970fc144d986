/**
 * Authentication of a simulated cluster from its options: off (every request is the administrator,
 * as the simulator always was) unless a token file or EKS tokens are asked for. When it is on, the
 * kubeconfig the simulator writes must still be an administrator's, so an admin token is made at
 * start (`everynode-sim-admin` in `system:masters`, the group RBAC allows everything) and added to
 * the token table.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequestAuthenticator, type EksAuthenticationOptions } from './request-authenticator.ts';
import { readTokenFile, type TokenTable } from './token-file.ts';
import { SIM_ADMIN, SYSTEM_MASTERS, type UserInfo } from './user-info.ts';

/** Authentication options of startSimCluster, named as kube-apiserver's. */
export interface SimAuthenticationOptions {
  /** `--token-auth-file`: path of a static token CSV (`token,user,uid[,"group1,group2"]`). */
  readonly tokenAuthFile?: string;
  /** EKS tokens: verified against these keys and mapped through these access entries. */
  readonly eks?: EksAuthenticationOptions;
}

/** Authentication in force. */
export interface SimAuthentication {
  /** The authenticate step of the API server's AccessControl. */
  readonly authenticate: (req: IncomingMessage) => Promise<UserInfo>;
  /** The administrator's bearer token, for the kubeconfig. */
  readonly adminToken: string;
}

/**
 * Authentication as `options` ask, or undefined when they ask for none; throws a TokenFileError
 * when the token file cannot be read or parsed.
 */
export async function simAuthentication(
  options: Readonly<SimAuthenticationOptions>,
): Promise<SimAuthentication | undefined> {
  if (options.tokenAuthFile === undefined && options.eks === undefined) return undefined;
  const fromFile: TokenTable =
    options.tokenAuthFile === undefined ? new Map() : await readTokenFile(options.tokenAuthFile);
  const adminToken = randomBytes(32).toString('base64url');
  const tokens = new Map(fromFile).set(adminToken, { name: SIM_ADMIN.name, groups: [SYSTEM_MASTERS] });
  const authenticate = createRequestAuthenticator({
    tokens,
    ...(options.eks === undefined ? {} : { eks: options.eks }),
  });
  return { authenticate, adminToken };
}
