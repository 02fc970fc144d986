/**
 * Who an IAM principal is in the cluster, as EKS maps it through its access entries: the caller's
 * ARN canonicalized as aws-iam-authenticator does it (pkg/arn Canonicalize: an STS assumed-role
 * session is its IAM role), matched against each entry's principal ARN (a role's path ignored, as
 * STS session ARNs carry none), then the entry's username template rendered (mapper renderTemplate)
 * or EKS's default username, and the entry's Kubernetes groups. No entry: not a user of the cluster.
 */
import { EverynodeError } from '../../errors/everynode-error.ts';
import type { UserInfo } from './user-info.ts';

/** An EKS access entry (CreateAccessEntry): which IAM principal is which Kubernetes user. */
export interface EksAccessEntry {
  /** The IAM role or user ARN, e.g. `arn:aws:iam::111122223333:role/everynode-reconcile`. */
  readonly principalArn: string;
  /**
   * Username template (`{{SessionName}}`, `{{SessionNameRaw}}`, `{{AccountID}}`, `{{AccessKeyID}}`);
   * default as EKS: an IAM user's ARN, or `arn:aws:sts::<account>:assumed-role/<role>/{{SessionName}}`.
   */
  readonly username?: string;
  /** Kubernetes groups (`kubernetesGroups`), for RBAC bindings. */
  readonly groups: readonly string[];
}

/** The caller of a verified EKS token: the ARN GetCallerIdentity answers and the key that signed. */
export interface EksIdentity {
  readonly arn: string;
  readonly accessKeyId: string;
}

/** A token EKS would not accept: malformed, badly signed, expired, or of no access entry. Not retryable. */
export class EksTokenRejected extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}

/** An identity's ARN taken apart (pkg/arn Canonicalize). */
export interface CanonicalPrincipal {
  readonly kind: 'role' | 'user' | 'root' | 'federated-user';
  /** The IAM ARN entries are matched on; for a session `arn:<partition>:iam::<account>:role/<name>`. */
  readonly canonicalArn: string;
  readonly partition: string;
  readonly account: string;
  /** The role's name, for roles. */
  readonly roleName?: string;
  /** The STS session name of an assumed role, '' otherwise. */
  readonly sessionName: string;
}

/** `arn` canonicalized; throws EksTokenRejected for an ARN that names no IAM identity. */
export function canonicalPrincipal(arn: string): CanonicalPrincipal {
  const [prefix, partition = '', service, , account = '', ...rest] = arn.split(':');
  const parts = rest.join(':').split('/');
  const common = { partition, account, sessionName: '' };
  if (prefix !== 'arn' || !partition || !account) throw new EksTokenRejected(`arn '${arn}' is invalid`);
  if (service === 'sts' && parts[0] === 'federated-user')
    return { ...common, kind: 'federated-user', canonicalArn: arn };
  if (service === 'sts' && parts[0] === 'assumed-role') {
    if (parts.length < 3) throw new EksTokenRejected(`assumed-role arn '${arn}' does not have a role`);
    const roleName = parts.slice(1, -1).join('/');
    const canonicalArn = `arn:${partition}:iam::${account}:role/${roleName}`;
    return { ...common, kind: 'role', canonicalArn, roleName, sessionName: parts.at(-1) ?? '' };
  }
  if (service === 'iam' && parts[0] === 'role')
    return { ...common, kind: 'role', canonicalArn: arn, roleName: parts.at(-1) ?? '' };
  if (service === 'iam' && (parts[0] === 'user' || parts[0] === 'root'))
    return { ...common, kind: parts[0], canonicalArn: arn };
  throw new EksTokenRejected(`arn '${arn}' is not a valid identity for authentication`);
}

/** A role ARN without its path (`role/a/b/name` → `role/name`); other ARNs as they are. */
function withoutRolePath(arn: string): string {
  const match = /^(arn:[^:]+:iam::[^:]+:role\/)(?:.*\/)?([^/]+)$/.exec(arn);
  return match ? `${match[1]}${match[2]}` : arn;
}

/** `template` with the identity's values (mapper renderTemplate: `@` becomes `-` in {{SessionName}}). */
function render(template: string, principal: CanonicalPrincipal, identity: Readonly<EksIdentity>): string {
  return template
    .replaceAll('{{AccountID}}', principal.account)
    .replaceAll('{{SessionName}}', principal.sessionName.replaceAll('@', '-'))
    .replaceAll('{{SessionNameRaw}}', principal.sessionName)
    .replaceAll('{{AccessKeyID}}', identity.accessKeyId);
}

/** EKS's username when an entry names none: a user's ARN, or the role's STS session ARN. */
function defaultUsername(principal: CanonicalPrincipal, identity: Readonly<EksIdentity>): string {
  if (principal.kind !== 'role') return identity.arn;
  const { partition, account, roleName } = principal;
  return `arn:${partition}:sts::${account}:assumed-role/${roleName}/{{SessionName}}`;
}

/**
 * The Kubernetes user of `identity` through `entries` (name and groups; the authenticator adds
 * system:authenticated); throws EksTokenRejected when no entry is the identity's.
 */
export function eksUser(identity: Readonly<EksIdentity>, entries: readonly EksAccessEntry[]): UserInfo {
  const principal = canonicalPrincipal(identity.arn);
  const target = withoutRolePath(principal.canonicalArn);
  const entry = entries.find((candidate) => withoutRolePath(candidate.principalArn) === target);
  if (!entry) throw new EksTokenRejected(`no access entry for ${principal.canonicalArn}`);
  const name = render(entry.username ?? defaultUsername(principal, identity), principal, identity);
  return { name, groups: [...entry.groups] };
}
