/**
 * The RBAC manifest of the everynode functions as typed objects and as the YAML `everynode install`
 * applies: per function a ClusterRole of its rules (rbac-rules.ts) and a ClusterRoleBinding to its
 * group (function-groups.ts). infra/k8s/rbac.yaml is this rendered for the default managed kind.
 */
import type { V1ClusterRole, V1ClusterRoleBinding, V1PolicyRule } from '@kubernetes/client-node';
import type { ManagedKind } from '../managed-kind.ts';
import { everynodeFunctions, FUNCTION_GROUPS, rbacObjectName } from './function-groups.ts';
import { type FunctionRule, functionRules } from './rbac-rules.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/**
 * The labels of every object everynode installs. `install` prunes the ClusterRoles and
 * ClusterRoleBindings carrying {@link PRUNE_SELECTOR} that it no longer renders (as `kubectl apply
 * --prune -l` would); `name` is the label the single-group manifest already carried.
 */
export const EVERYNODE_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/name': 'everynode',
  'app.kubernetes.io/part-of': 'everynode',
};

/** The label selector of the RBAC objects everynode owns, old and new. */
export const PRUNE_SELECTOR = 'app.kubernetes.io/name=everynode';

/** One function's ClusterRole and binding, with the reasons of the role's rules. */
export interface FunctionRbac {
  readonly role: V1ClusterRole;
  readonly binding: V1ClusterRoleBinding;
  /** The reasons, index for index with `role.rules`. */
  readonly reasons: readonly string[];
}

function policyRule(rule: Readonly<FunctionRule>): V1PolicyRule {
  return {
    apiGroups: [...rule.apiGroups],
    resources: [...rule.resources],
    ...(rule.resourceNames ? { resourceNames: [...rule.resourceNames] } : {}),
    verbs: [...rule.verbs],
  };
}

/** The ClusterRole and ClusterRoleBinding of each function, in pipeline order, for `kind`. */
export function rbacObjects(kind: ManagedKind): readonly FunctionRbac[] {
  return everynodeFunctions.map((fn) => {
    const name = rbacObjectName(fn);
    const metadata = { name, labels: { ...EVERYNODE_LABELS } };
    const rules = functionRules(fn, kind);
    return {
      role: { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata, rules: rules.map(policyRule) },
      binding: {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name, labels: { ...EVERYNODE_LABELS } },
        roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name },
        subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: FUNCTION_GROUPS[fn] }],
      },
      reasons: rules.map((rule) => rule.why),
    };
  });
}

/** `text` as YAML comment lines of at most 100 characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line = `${line} ${word}`;
  }
  return [...lines, line];
}

const flow = (values: readonly string[] | undefined) =>
  `[${(values ?? []).map((v) => JSON.stringify(v)).join(', ')}]`;

function metadataLines(name: string): string[] {
  const labels = Object.entries(EVERYNODE_LABELS).map(([key, value]) => `    ${key}: ${value}`);
  return ['metadata:', `  name: ${name}`, '  labels:', ...labels];
}

function renderFunction({ role, binding, reasons }: Readonly<FunctionRbac>): string {
  const name = role.metadata?.name ?? '';
  const rules = (role.rules ?? []).flatMap((rule, i) => [
    ...comment(reasons[i] ?? ''),
    `- apiGroups: ${flow(rule.apiGroups)}`,
    `  resources: ${flow(rule.resources)}`,
    ...(rule.resourceNames ? [`  resourceNames: ${flow(rule.resourceNames)}`] : []),
    `  verbs: ${flow(rule.verbs)}`,
  ]);
  const subjects = (binding.subjects ?? []).flatMap((s) => [
    `- apiGroup: ${s.apiGroup}`,
    `  kind: ${s.kind}`,
    `  name: ${s.name}`,
  ]);
  return [
    ...[`apiVersion: ${role.apiVersion}`, `kind: ${role.kind}`, ...metadataLines(name), 'rules:', ...rules],
    '---',
    ...[`apiVersion: ${binding.apiVersion}`, `kind: ${binding.kind}`, ...metadataLines(name)],
    ...['roleRef:', `  apiGroup: ${rbacGroup}`, '  kind: ClusterRole', `  name: ${name}`, 'subjects:'],
    ...subjects,
  ].join('\n');
}

/**
 * The RBAC manifest for `kind` as multi-document YAML with a comment on every rule: what
 * `everynode install --manage <kind>` applies (infra/k8s/rbac.yaml is the default kind's).
 */
export function renderRbacManifest(kind: ManagedKind): string {
  const header = comment(
    `What each everynode function may do in the cluster when it manages ${kind} DaemonSets, and nothing more. The EKS access entries of the CDK stack map each function's IAM role to its own group (${Object.values(FUNCTION_GROUPS).join(', ')}) with no EKS access policy, so these rules are the whole of their rights. Rendered by lib/kube/rbac/rbac-manifest.ts; \`everynode install --manage apps/v1\` renders it for apps/v1.`,
  );
  return `${header.join('\n')}\n${rbacObjects(kind).map(renderFunction).join('\n---\n')}\n`;
}
