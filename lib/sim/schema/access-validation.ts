/**
 * The 422 rules of the RBAC kinds (pkg/apis/rbac/validation/validation.go: ValidatePolicyRule,
 * ValidateRoleBinding, ValidateRoleBindingSubject, ValidateRoleBindingUpdate) and the core of
 * CustomResourceDefinition validation (apiextensions-apiserver
 * pkg/apis/apiextensions/validation: the name, group, scope, names and one storage version).
 */
import type { FieldError } from './api-error.ts';
import { invalid, notSupported, required } from './field-errors.ts';
import type { ResourceKey } from './resources.ts';
import { asRecord, jsonEqual } from './store-json.ts';
import type { KubeObject } from './store-types.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** ValidatePolicyRule: verbs always; URLs only cluster-wide and alone; else groups and resources. */
function policyRuleErrors(
  rule: Readonly<Record<string, unknown>>,
  namespaced: boolean,
  at: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (listOf(rule.verbs).length === 0)
    errors.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
  const urls = listOf(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errors.push(
        invalid(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'),
      );
    const resourceParts = [rule.apiGroups, rule.resources, rule.resourceNames].some(
      (l) => listOf(l).length > 0,
    );
    if (resourceParts)
      errors.push(
        invalid(
          `${at}.nonResourceURLs`,
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return errors;
  }
  if (listOf(rule.apiGroups).length === 0)
    errors.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
  if (listOf(rule.resources).length === 0)
    errors.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  return errors;
}

/** The rules of a Role (namespaced) or ClusterRole, and a ClusterRole's aggregation rule. */
function roleErrors(obj: Readonly<KubeObject>, namespaced: boolean): FieldError[] {
  const errors = listOf(obj.rules).flatMap((rule, i) =>
    policyRuleErrors(asRecord(rule) ?? {}, namespaced, `rules[${i}]`),
  );
  const aggregation = asRecord(obj.aggregationRule);
  if (aggregation && listOf(aggregation.clusterRoleSelectors).length === 0) {
    errors.push(
      required(
        'aggregationRule.clusterRoleSelectors',
        'at least one clusterRoleSelector required if aggregationRule is non-nil',
      ),
    );
  }
  return errors;
}

/** ValidateRoleBindingSubject: a name, a known kind, the apiGroup of its kind. */
function subjectErrors(
  subject: Readonly<Record<string, unknown>>,
  namespaced: boolean,
  at: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!textOf(subject.name)) errors.push(required(`${at}.name`));
  const group = textOf(subject.apiGroup);
  switch (subject.kind) {
    case 'ServiceAccount':
      if (group) errors.push(notSupported(`${at}.apiGroup`, group, ['']));
      if (!namespaced && !textOf(subject.namespace)) errors.push(required(`${at}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (group !== rbacGroup) errors.push(notSupported(`${at}.apiGroup`, group, [rbacGroup]));
      break;
    default:
      errors.push(notSupported(`${at}.kind`, textOf(subject.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errors;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding: a role reference of a kind it may bind, valid subjects. */
function bindingErrors(obj: Readonly<KubeObject>, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = asRecord(obj.roleRef) ?? {};
  if (roleRef.apiGroup !== rbacGroup)
    errors.push(notSupported('roleRef.apiGroup', textOf(roleRef.apiGroup), [rbacGroup]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(textOf(roleRef.kind)))
    errors.push(notSupported('roleRef.kind', textOf(roleRef.kind), kinds));
  if (!textOf(roleRef.name)) errors.push(required('roleRef.name'));
  listOf(obj.subjects).forEach((subject, i) => {
    errors.push(...subjectErrors(asRecord(subject) ?? {}, namespaced, `subjects[${i}]`));
  });
  return errors;
}

/** The CRD rules the simulator checks: its name is `<plural>.<group>`, a scope, names, one storage version. */
function crdErrors(obj: Readonly<KubeObject>): FieldError[] {
  const errors: FieldError[] = [];
  const spec = asRecord(obj.spec) ?? {};
  const names = asRecord(spec.names) ?? {};
  const [group, plural] = [textOf(spec.group), textOf(names.plural)];
  if (obj.metadata.name !== `${plural}.${group}`)
    errors.push(
      invalid('metadata.name', obj.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'),
    );
  if (!group) errors.push(required('spec.group'));
  if (!['Cluster', 'Namespaced'].includes(textOf(spec.scope)))
    errors.push(notSupported('spec.scope', textOf(spec.scope), ['Cluster', 'Namespaced']));
  if (!plural) errors.push(required('spec.names.plural'));
  if (!textOf(names.kind)) errors.push(required('spec.names.kind'));
  const storage = listOf(spec.versions).filter((v) => asRecord(v)?.storage === true);
  if (storage.length !== 1)
    errors.push(
      invalid(
        'spec.versions',
        spec.versions ?? [],
        'must have exactly one version marked as storage version',
      ),
    );
  return errors;
}

/** The errors of a new (or updated) RBAC object or CRD; none for other resources. */
export function accessErrors(key: ResourceKey, obj: Readonly<KubeObject>): FieldError[] {
  switch (key) {
    case 'rbac.authorization.k8s.io/roles':
      return roleErrors(obj, true);
    case 'rbac.authorization.k8s.io/clusterroles':
      return roleErrors(obj, false);
    case 'rbac.authorization.k8s.io/rolebindings':
      return bindingErrors(obj, true);
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      return bindingErrors(obj, false);
    case 'apiextensions.k8s.io/customresourcedefinitions':
      return crdErrors(obj);
    default:
      return [];
  }
}

/** `roleRef: Invalid value: rbac.RoleRef{...}: cannot change roleRef`, the struct printed as Go's %#v. */
function roleRefChanged(value: unknown): FieldError {
  const ref = asRecord(value) ?? {};
  const go = `rbac.RoleRef{APIGroup:${JSON.stringify(textOf(ref.apiGroup))}, Kind:${JSON.stringify(textOf(ref.kind))}, Name:${JSON.stringify(textOf(ref.name))}}`;
  return {
    type: 'FieldValueInvalid',
    field: 'roleRef',
    message: `Invalid value: ${go}: cannot change roleRef`,
  };
}

/** The errors of an update: those of the new object, and a binding's roleRef may not change. */
export function accessUpdateErrors(
  key: ResourceKey,
  obj: Readonly<KubeObject>,
  old: Readonly<KubeObject>,
): FieldError[] {
  const errors = accessErrors(key, obj);
  const binding =
    key === 'rbac.authorization.k8s.io/rolebindings' ||
    key === 'rbac.authorization.k8s.io/clusterrolebindings';
  if (binding && !jsonEqual(obj.roleRef, old.roleRef)) errors.push(roleRefChanged(obj.roleRef));
  return errors;
}
