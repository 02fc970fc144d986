/**
 * Required node affinity: does a node satisfy a pod's `nodeSelector` and
 * `requiredDuringSchedulingIgnoredDuringExecution` terms (upstream
 * k8s.io/component-helpers scheduling/corev1/nodeaffinity GetRequiredNodeAffinity,
 * LazyErrorNodeSelector, and apimachinery labels.NewRequirement / Requirement.Matches).
 */
import type {
  V1Node,
  V1NodeSelector,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1PodSpec,
} from '@kubernetes/client-node';

type Labels = Readonly<Record<string, string>>;

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INT64 = /^[+-]?[0-9]+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** True when `key` is a valid label key: `[prefix/]name` (apimachinery validation.IsQualifiedName). */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '' || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
  }
  return name !== undefined && name.length <= 63 && NAME_PART.test(name);
}

/** True when `value` is a valid label value: empty, or ≤ 63 name characters (IsValidLabelValue). */
export function isValidLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME_PART.test(value));
}

/** `s` parsed as Go strconv.ParseInt(s, 10, 64), or undefined when that fails. */
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const value = BigInt(s);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/**
 * True when `requirement` parses as a label requirement (labels.NewRequirement): a qualified key,
 * valid values, In/NotIn with at least one value, Exists/DoesNotExist with none, Gt/Lt with
 * exactly one integer. Upstream treats a term with an invalid requirement as matching nothing.
 */
export function isValidLabelRequirement(requirement: Readonly<V1NodeSelectorRequirement>): boolean {
  const values = requirement.values ?? [];
  if (!isQualifiedName(requirement.key) || !values.every(isValidLabelValue)) return false;
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0;
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    case 'Gt':
    case 'Lt':
      return values.length === 1 && values.every((value) => parseInt64(value) !== undefined);
    default:
      return false;
  }
}

/**
 * True when `labels` satisfy the (valid) `requirement` (labels.Requirement.Matches): NotIn and
 * DoesNotExist match an absent label; Gt/Lt need the label to parse as an int64.
 */
export function labelRequirementMatches(
  requirement: Readonly<V1NodeSelectorRequirement>,
  labels: Labels,
): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key] ?? '';
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return has && values.includes(value);
    case 'NotIn':
      return !has || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt':
      return has && compareInt64(requirement.operator, value, values[0] ?? '');
    default:
      return false;
  }
}

function compareInt64(operator: 'Gt' | 'Lt', labelValue: string, bound: string): boolean {
  const left = parseInt64(labelValue);
  const right = parseInt64(bound);
  if (left === undefined || right === undefined) return false;
  return operator === 'Gt' ? left > right : left < right;
}

/**
 * Whether `fields` satisfy a `matchFields` requirement, or undefined when it does not parse
 * (nodeSelectorRequirementsAsFieldSelector: only In/NotIn with exactly one value; an unknown
 * field reads as the empty string, as fields.Set.Get does).
 */
function fieldRequirementMatches(
  requirement: Readonly<V1NodeSelectorRequirement>,
  fields: Labels,
): boolean | undefined {
  const values = requirement.values ?? [];
  if ((requirement.operator !== 'In' && requirement.operator !== 'NotIn') || values.length !== 1)
    return undefined;
  const equal = (fields[requirement.key] ?? '') === values[0];
  return requirement.operator === 'In' ? equal : !equal;
}

/**
 * True when `term` selects a node with `labels` and `fields` (nodeSelectorTerm.match): every
 * matchExpression and every matchField holds (ANDed). A term with an unparsable requirement
 * matches nothing; matchFields are skipped for a node without a name (no fields), as upstream.
 */
function termMatches(term: Readonly<V1NodeSelectorTerm>, labels: Labels, fields: Labels): boolean {
  const expressions = term.matchExpressions ?? [];
  if (!expressions.every(isValidLabelRequirement)) return false;
  const fieldResults = (term.matchFields ?? []).map((r) => fieldRequirementMatches(r, fields));
  if (fieldResults.includes(undefined)) return false;
  if (!expressions.every((r) => labelRequirementMatches(r, labels))) return false;
  return Object.keys(fields).length === 0 || fieldResults.every((matched) => matched === true);
}

function isEmptyTerm(term: Readonly<V1NodeSelectorTerm>): boolean {
  return (term.matchExpressions ?? []).length === 0 && (term.matchFields ?? []).length === 0;
}

/**
 * True when `node` satisfies `selector`: some non-empty term matches (terms are ORed; an empty
 * term, or a selector with no terms, selects nothing) (LazyErrorNodeSelector.Match).
 */
export function nodeSelectorMatches(selector: Readonly<V1NodeSelector>, node: Readonly<V1Node>): boolean {
  const labels: Labels = node.metadata?.labels ?? {};
  const name = node.metadata?.name ?? '';
  const fields: Labels = name === '' ? {} : { 'metadata.name': name };
  return selector.nodeSelectorTerms
    .filter((term) => !isEmptyTerm(term))
    .some((term) => termMatches(term, labels, fields));
}

/**
 * True when `node` satisfies the pod's required node affinity: every `nodeSelector` label is
 * present with that value, AND (when set) the required affinity selector matches — so a required
 * selector with no usable terms rejects every node (upstream RequiredNodeAffinity.Match).
 */
export function nodeMatchesRequiredAffinity(
  node: Readonly<V1Node>,
  podSpec: Readonly<Pick<V1PodSpec, 'nodeSelector' | 'affinity'>>,
): boolean {
  const labels: Labels = node.metadata?.labels ?? {};
  const nodeSelector = podSpec.nodeSelector ?? {};
  for (const [key, value] of Object.entries(nodeSelector)) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  }
  const required = podSpec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required === undefined || required === null || nodeSelectorMatches(required, node);
}
