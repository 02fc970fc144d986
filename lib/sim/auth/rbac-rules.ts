/**
 * Whether one RBAC PolicyRule covers a request, ported from plugin/pkg/auth/authorizer/rbac/rbac.go
 * (RuleAllows) and the matchers of pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches,
 * APIGroupMatches, ResourceMatches, ResourceNameMatches, NonResourceURLMatches).
 */
import type { V1PolicyRule } from '@kubernetes/client-node';
import type { RequestAttributes } from './request-attributes.ts';

/** The wildcard of verbs, API groups, resources and non-resource URLs (rbacv1.VerbAll and kin). */
const all = '*';

/** VerbMatches: the rule names the verb, or `*`. */
export function verbMatches(rule: Readonly<V1PolicyRule>, verb: string): boolean {
  return (rule.verbs ?? []).some((v) => v === all || v === verb);
}

/** APIGroupMatches: the rule names the group (`""` is the core group), or `*`. */
export function apiGroupMatches(rule: Readonly<V1PolicyRule>, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === all || g === group);
}

/**
 * ResourceMatches: `*`, the exact `resource` or `resource/subresource`, or `*\/subresource` for a
 * request of that subresource of any resource.
 */
export function resourceMatches(
  rule: Readonly<V1PolicyRule>,
  combinedResource: string,
  subresource: string,
): boolean {
  return (rule.resources ?? []).some(
    (r) => r === all || r === combinedResource || (subresource !== '' && r === `*/${subresource}`),
  );
}

/**
 * ResourceNameMatches: a rule without resourceNames covers every name; one with names covers only
 * requests naming one of them, so never a create, list or watch that names no object.
 */
export function resourceNameMatches(rule: Readonly<V1PolicyRule>, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** NonResourceURLMatches: `*`, the exact path, or a prefix when the rule's URL ends in `*`. */
export function nonResourceUrlMatches(rule: Readonly<V1PolicyRule>, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (url) => url === all || url === path || (url.endsWith(all) && path.startsWith(url.replace(/\*+$/, ''))),
  );
}

/** RuleAllows: whether `rule` grants the request described by `attributes`. */
export function ruleAllows(attributes: Readonly<RequestAttributes>, rule: Readonly<V1PolicyRule>): boolean {
  if (!attributes.resourceRequest)
    return verbMatches(rule, attributes.verb) && nonResourceUrlMatches(rule, attributes.path);
  const combined = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource;
  return (
    verbMatches(rule, attributes.verb) &&
    apiGroupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, combined, attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}
