/**
 * The container resources a DaemonSet's node-sizing rules give its pod on one node, from the node
 * object alone (its labels and status.allocatable): pure, so the pair step sizes a pod from the
 * node it already read.
 *
 * Per (container, resource) the last matching rule that can size it on the node wins. Its request
 * is its fixed `requests`, or `perAllocatable × allocatable + perAllocatablePod × allocatable pods`
 * rounded up to a whole millicore (cpu) or MiB (memory) and clamped to [min, max]. The limit is the
 * rule's `limits`, else the template's limit scaled by the template's limit-to-request ratio (the
 * request defaulting to the limit, as the API server defaults it) and rounded up alike; a ratio of
 * one gives a limit equal to the request, so a Guaranteed template stays Guaranteed.
 */
import type { V1Container, V1Node, V1PodSpec, V1ResourceRequirements } from '@kubernetes/client-node';
import { labelSelectorMatches } from '../label-selector.ts';
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  quantity,
  stepsRoundedUp,
} from './quantity.ts';
import { resourcesSizedBy, type SizedResource, type SizingRule } from './sizing-rule.ts';

const MIB = 1024n * 1024n;

/** An amount rounded up to the resource's unit: a millicore of cpu, a MiB of memory. */
function roundedUp(resource: SizedResource, amount: Readonly<{ num: bigint; den: bigint }>): Quantity {
  if (resource === 'cpu')
    return quantity(stepsRoundedUp({ num: amount.num * 1000n, den: amount.den }, 1n), 1000n, 'DecimalSI');
  return quantity(stepsRoundedUp(amount, MIB) * MIB, 1n, 'BinarySI');
}

function allocatable(node: Readonly<V1Node>, name: string): Quantity | undefined {
  return parseQuantity(node.status?.allocatable?.[name]);
}

/** The request `rule` gives `resource` on `node`; undefined when the node does not report what it needs. */
function ruleRequest(
  rule: Readonly<SizingRule>,
  resource: SizedResource,
  node: Readonly<V1Node>,
): Quantity | undefined {
  const fixed = rule.requests?.[resource];
  if (fixed !== undefined) return fixed;
  let sum = { num: 0n, den: 1n };
  const add = (num: bigint, den: bigint) => {
    sum = { num: sum.num * den + num * sum.den, den: sum.den * den };
  };
  const share = rule.perAllocatable?.[resource];
  if (share !== undefined) {
    const total = allocatable(node, resource);
    if (total === undefined) return undefined;
    add(share.num * total.num, share.den * total.den);
  }
  const perPod = rule.perAllocatablePod?.[resource];
  if (perPod !== undefined) {
    const pods = allocatable(node, 'pods');
    if (pods === undefined) return undefined;
    add(perPod.num * pods.num, perPod.den * pods.den);
  }
  let request = roundedUp(resource, sum);
  const [min, max] = [rule.min?.[resource], rule.max?.[resource]];
  if (min !== undefined && compareQuantities(request, min) < 0) request = min;
  if (max !== undefined && compareQuantities(request, max) > 0) request = max;
  return request;
}

/** The limit for `request`: the rule's, else the template's scaled by its ratio, else none. */
function ruleLimit(
  rule: Readonly<SizingRule>,
  resource: SizedResource,
  request: Quantity,
  template: Readonly<V1ResourceRequirements> | undefined,
): Quantity | undefined {
  const fixed = rule.limits?.[resource];
  if (fixed !== undefined) return fixed;
  const limit = parseQuantity(template?.limits?.[resource]);
  if (limit === undefined) return undefined;
  const base = parseQuantity(template?.requests?.[resource]) ?? limit;
  if (base.num === 0n) return limit;
  if (compareQuantities(base, limit) === 0) return request;
  return roundedUp(resource, {
    num: request.num * limit.num * base.den,
    den: request.den * limit.den * base.num,
  });
}

/** What sizes one (container, resource) on a node: the winning rule and the request it gives. */
interface Sized {
  readonly rule: SizingRule;
  readonly request: Quantity;
}

/** The sizing of each (container, resource) on `node`: the last matching rule that can size it there. */
function winningRules(
  rules: readonly SizingRule[],
  node: Readonly<V1Node>,
): Map<string, Map<SizedResource, Sized>> {
  const won = new Map<string, Map<SizedResource, Sized>>();
  for (const rule of rules) {
    if (
      rule.nodeSelector !== undefined &&
      !labelSelectorMatches(rule.nodeSelector, node.metadata?.labels ?? {})
    )
      continue;
    for (const resource of resourcesSizedBy(rule)) {
      const request = ruleRequest(rule, resource, node);
      if (request === undefined) continue;
      const byResource = won.get(rule.container) ?? new Map<SizedResource, Sized>();
      byResource.set(resource, { rule, request });
      won.set(rule.container, byResource);
    }
  }
  return won;
}

/** The quantities of one container's resources, per resource, after sizing. */
export interface SizedQuantities {
  readonly requests: Partial<Record<SizedResource, Quantity>>;
  readonly limits: Partial<Record<SizedResource, Quantity>>;
}

/**
 * The requests and limits the rules give each container they size on `node` (containers and
 * resources no matching rule sizes are absent: they keep the template's values).
 */
export function sizedQuantities(
  containers: readonly Readonly<V1Container>[],
  rules: readonly SizingRule[],
  node: Readonly<V1Node>,
): Map<string, SizedQuantities> {
  const result = new Map<string, SizedQuantities>();
  for (const [name, byResource] of winningRules(rules, node)) {
    const template = containers.find((container) => container.name === name)?.resources;
    const sized: SizedQuantities = { requests: {}, limits: {} };
    for (const [resource, { rule, request }] of byResource) {
      sized.requests[resource] = request;
      const limit = ruleLimit(rule, resource, request, template);
      if (limit !== undefined) sized.limits[resource] = limit;
    }
    result.set(name, sized);
  }
  return result;
}

/** `resources` with the sized requests and limits written over it, canonically printed. */
function withSized(
  resources: Readonly<V1ResourceRequirements> | undefined,
  sized: Readonly<SizedQuantities>,
): V1ResourceRequirements {
  const print = (values: Partial<Record<SizedResource, Quantity>>) =>
    Object.fromEntries(Object.entries(values).map(([resource, value]) => [resource, formatQuantity(value)]));
  const requests = { ...resources?.requests, ...print(sized.requests) };
  const limits = { ...resources?.limits, ...print(sized.limits) };
  return {
    ...resources,
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

/**
 * The containers' `resources` the rules give on `node`, by container name, for the containers they
 * size there (others keep the template's): the template's resources with each sized request and
 * limit replaced, quantities as the API server prints them (`150m`, `1536Mi`).
 */
export function sizedResources(
  spec: Readonly<V1PodSpec>,
  rules: readonly SizingRule[],
  node: Readonly<V1Node>,
): Map<string, V1ResourceRequirements> {
  const result = new Map<string, V1ResourceRequirements>();
  for (const [name, sized] of sizedQuantities(spec.containers ?? [], rules, node)) {
    const container = spec.containers.find((c) => c.name === name);
    if (container !== undefined) result.set(name, withSized(container.resources, sized));
  }
  return result;
}

/** `spec` (a copy) with the containers the rules size on `node` given their sized resources. */
export function sizedPodSpec(
  spec: Readonly<V1PodSpec>,
  rules: readonly SizingRule[],
  node: Readonly<V1Node>,
): V1PodSpec {
  const sized = sizedResources(spec, rules, node);
  if (sized.size === 0) return spec as V1PodSpec;
  return {
    ...spec,
    containers: spec.containers.map((container) => {
      const resources = sized.get(container.name);
      return resources === undefined ? container : { ...container, resources };
    }),
  };
}
