/**
 * kube-apiserver's `--authorization-mode RBAC`, pure over the RBAC objects: the privileged-group
 * authorizer (authorizerfactory.NewPrivilegedGroups: `system:masters` may do anything), then the
 * RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go Authorize over
 * pkg/registry/rbac/validation/rule.go DefaultRuleResolver.VisitRulesFor): the rules of every
 * ClusterRoleBinding whose subjects include the user, then those of the RoleBindings of the
 * request's namespace, until one rule allows the request.
 */
import type {
  RbacV1Subject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
  V1RoleRef,
} from '@kubernetes/client-node';
import type { AuthorizationDecision } from './access-control.ts';
import { ruleAllows } from './rbac-rules.ts';
import type { RequestAttributes } from './request-attributes.ts';
import { SYSTEM_MASTERS, type UserInfo } from './user-info.ts';

/** The RBAC objects an authorization decision reads (upstream's role getters and binding listers). */
export interface RbacPolicy {
  clusterRoleBindings(): readonly Readonly<V1ClusterRoleBinding>[];
  /** The RoleBindings of `namespace`. */
  roleBindings(namespace: string): readonly Readonly<V1RoleBinding>[];
  clusterRole(name: string): Readonly<V1ClusterRole> | undefined;
  role(namespace: string, name: string): Readonly<V1Role> | undefined;
}

/** RBAC objects as plain lists, for a policy built from fixtures or a snapshot. */
export interface RbacObjects {
  readonly roles?: readonly Readonly<V1Role>[];
  readonly roleBindings?: readonly Readonly<V1RoleBinding>[];
  readonly clusterRoles?: readonly Readonly<V1ClusterRole>[];
  readonly clusterRoleBindings?: readonly Readonly<V1ClusterRoleBinding>[];
}

/** The policy of fixed lists of objects (upstream's StaticRoles). */
export function rbacPolicyOf(objects: Readonly<RbacObjects>): RbacPolicy {
  return {
    clusterRoleBindings: () => objects.clusterRoleBindings ?? [],
    roleBindings: (namespace) =>
      (objects.roleBindings ?? []).filter((b) => b.metadata?.namespace === namespace),
    clusterRole: (name) => objects.clusterRoles?.find((r) => r.metadata?.name === name),
    role: (namespace, name) =>
      objects.roles?.find((r) => r.metadata?.namespace === namespace && r.metadata?.name === name),
  };
}

/** appliesToUser: a User by name, a Group the user is in, a ServiceAccount by its username. */
function appliesToUser(
  user: Readonly<UserInfo>,
  subject: Readonly<RbacV1Subject>,
  namespace: string,
): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // An unqualified ServiceAccount of a RoleBinding is one of the binding's namespace.
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.name === `system:serviceaccount:${saNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** describeSubject: `Group "g"`, or `ServiceAccount "name/namespace"`. */
function describeSubject(subject: Readonly<RbacV1Subject>, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount')
    return `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

/** The rules a role reference resolves to, or the error upstream's role getters give. */
function roleRules(policy: RbacPolicy, ref: Readonly<V1RoleRef>, namespace: string): V1PolicyRule[] | Error {
  if (ref.kind === 'ClusterRole') {
    const role = policy.clusterRole(ref.name);
    return role
      ? (role.rules ?? [])
      : new Error(`clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`);
  }
  if (ref.kind === 'Role') {
    const role = namespace ? policy.role(namespace, ref.name) : undefined;
    return role ? (role.rules ?? []) : new Error(`role.rbac.authorization.k8s.io "${ref.name}" not found`);
  }
  return new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
}

/** A binding as VisitRulesFor sees it: where it is, how upstream names it, whom and what it binds. */
interface Binding {
  readonly label: string;
  readonly namespace: string;
  readonly roleRef: Readonly<V1RoleRef>;
  readonly subjects: readonly Readonly<RbacV1Subject>[];
}

/** ClusterRoleBindings, then the RoleBindings of `namespace` when the request has one. */
function bindingsFor(policy: RbacPolicy, namespace: string): Binding[] {
  const cluster = policy.clusterRoleBindings().map((b) => ({
    label: `ClusterRoleBinding ${JSON.stringify(b.metadata?.name ?? '')}`,
    namespace: '',
    roleRef: b.roleRef,
    subjects: b.subjects ?? [],
  }));
  if (!namespace) return cluster;
  const local = policy.roleBindings(namespace).map((b) => ({
    label: `RoleBinding ${JSON.stringify(`${b.metadata?.name ?? ''}/${namespace}`)}`,
    namespace,
    roleRef: b.roleRef,
    subjects: b.subjects ?? [],
  }));
  return [...cluster, ...local];
}

/** utilerrors.NewAggregate(errors).Error(): one message as is, several deduplicated in brackets. */
function aggregate(errors: readonly Error[]): string {
  const messages = [...new Set(errors.map((e) => e.message))];
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}

/**
 * The RBAC authorizer's decision: allowed with `RBAC: allowed by <binding> of <role> to <subject>`,
 * or not allowed with no reason, or with `RBAC: <errors>` when bindings referred to roles that could
 * not be resolved (as upstream: a plain denial carries no reason).
 */
export function authorizeRbac(
  policy: RbacPolicy,
  attributes: Readonly<RequestAttributes>,
): AuthorizationDecision {
  const errors: Error[] = [];
  for (const binding of bindingsFor(policy, attributes.namespace)) {
    const subject = binding.subjects.find((s) => appliesToUser(attributes.user, s, binding.namespace));
    if (!subject) continue;
    const rules = roleRules(policy, binding.roleRef, binding.namespace);
    if (rules instanceof Error) {
      errors.push(rules);
      continue;
    }
    if (rules.some((rule) => ruleAllows(attributes, rule))) {
      const role = `${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)}`;
      const to = describeSubject(subject, binding.namespace);
      return { allowed: true, reason: `RBAC: allowed by ${binding.label} of ${role} to ${to}` };
    }
  }
  return errors.length > 0 ? { allowed: false, reason: `RBAC: ${aggregate(errors)}` } : { allowed: false };
}

/**
 * The authorize step of `--authorization-mode RBAC` over `policy`: members of `system:masters`
 * are allowed outright (with no reason, as the privileged-group authorizer), everyone else as
 * authorizeRbac decides.
 */
export function rbacAuthorizer(
  policy: RbacPolicy,
): (attributes: Readonly<RequestAttributes>) => AuthorizationDecision {
  return (attributes) =>
    attributes.user.groups.includes(SYSTEM_MASTERS) ? { allowed: true } : authorizeRbac(policy, attributes);
}
