/**
 * The range of sizes a DaemonSet's node-sizing rules give across nodes, for display: per sized
 * container and resource, the smallest and the largest request.
 */
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from './quantity.ts';
import { sizedQuantities } from './sized-resources.ts';
import { resourcesSizedBy, SIZED_RESOURCES, type SizedResource, type SizingRule } from './sizing-rule.ts';

/** The smallest and largest request of one resource, as the API server prints them. */
export interface SizeRange {
  readonly min: string;
  readonly max: string;
}

/** Per container the rules name, per resource they size: the range over the nodes (absent: no request). */
export type SizingRange = Record<string, Partial<Record<SizedResource, SizeRange>>>;

/**
 * The requests the rules give across `nodes`, by container and resource; a node no rule sizes
 * counts with the template's request (when it has one: a resource without a request anywhere
 * is left out).
 */
export function sizingRange(
  spec: Readonly<V1PodSpec>,
  rules: readonly SizingRule[],
  nodes: readonly Readonly<V1Node>[],
): SizingRange {
  const seen = new Map<string, { min: Quantity; max: Quantity }>();
  const note = (container: string, resource: SizedResource, value: Quantity | undefined) => {
    if (value === undefined) return;
    const key = `${container}\u0000${resource}`;
    const range = seen.get(key);
    if (range === undefined) seen.set(key, { min: value, max: value });
    else {
      if (compareQuantities(value, range.min) < 0) range.min = value;
      if (compareQuantities(value, range.max) > 0) range.max = value;
    }
  };
  const named = new Map<string, Set<SizedResource>>();
  for (const rule of rules) {
    const set = named.get(rule.container) ?? new Set<SizedResource>();
    for (const resource of resourcesSizedBy(rule)) set.add(resource);
    named.set(rule.container, set);
  }
  // Nodes alike in what the rules read size alike: each kind of node is sized once (5,000 nodes of
  // three instance types: 54 ms a DaemonSet step before, 10 ms after, mostly building the keys).
  const byInputs = new Map<string, ReturnType<typeof sizedQuantities>>();
  const keys = selectorLabelKeys(rules);
  for (const node of nodes) {
    const inputs = sizingInputs(keys, node);
    let sized = byInputs.get(inputs);
    if (sized === undefined) {
      sized = sizedQuantities(spec.containers ?? [], rules, node);
      byInputs.set(inputs, sized);
    }
    for (const [container, resources] of named) {
      const template = spec.containers?.find((c) => c.name === container)?.resources;
      for (const resource of resources) {
        const fallback = template?.requests?.[resource] ?? template?.limits?.[resource];
        note(container, resource, sized.get(container)?.requests[resource] ?? parseQuantity(fallback));
      }
    }
  }
  const result: SizingRange = {};
  for (const [container, resources] of named)
    for (const resource of SIZED_RESOURCES) {
      const range = resources.has(resource) ? seen.get(`${container}\u0000${resource}`) : undefined;
      if (range === undefined) continue;
      result[container] = {
        ...result[container],
        [resource]: { min: formatQuantity(range.min), max: formatQuantity(range.max) },
      };
    }
  return result;
}

/** The label keys the rules' node selectors name (matchLabels and matchExpressions), sorted. */
function selectorLabelKeys(rules: readonly SizingRule[]): string[] {
  const keys = new Set<string>();
  for (const rule of rules) {
    for (const key of Object.keys(rule.nodeSelector?.matchLabels ?? {})) keys.add(key);
    for (const expression of rule.nodeSelector?.matchExpressions ?? []) keys.add(expression.key);
  }
  return [...keys].sort();
}

/**
 * All a node's size depends on: the values (or absence) of the labels the selectors name and the
 * allocatable amounts the rules read (sized-resources.ts reads nothing else of a node).
 */
function sizingInputs(keys: readonly string[], node: Readonly<V1Node>): string {
  const labels = node.metadata?.labels ?? {};
  const allocatable = node.status?.allocatable ?? {};
  return JSON.stringify([
    keys.map((key) => labels[key] ?? null),
    [...SIZED_RESOURCES, 'pods'].map((name) => allocatable[name] ?? null),
  ]);
}

/** The range in one line: `agent cpu 50m-2 memory 128Mi-4Gi` (one value when min equals max). */
export function sizingRangeText(range: Readonly<SizingRange>): string {
  return Object.entries(range)
    .map(([container, resources]) =>
      [
        container,
        ...Object.entries(resources).map(
          ([resource, r]) => `${resource} ${r.min === r.max ? r.min : `${r.min}-${r.max}`}`,
        ),
      ].join(' '),
    )
    .join(', ');
}
