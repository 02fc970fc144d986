/**
 * Checks of node-sizing rules against the pod template they size: each names a regular container
 * of it; a request never exceeds a limit that does not follow it; a Guaranteed template stays
 * Guaranteed.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { type FieldViolation, forbidden, invalid } from '../field-violation.ts';
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from './quantity.ts';
import { resourcesSizedBy, SIZED_RESOURCES, type SizedResource, type SizingRule } from './sizing-rule.ts';

/** A container's request of `resource`, defaulted from its limit as the API server does. */
function requestOf(container: Readonly<V1Container>, resource: SizedResource): Quantity | undefined {
  return parseQuantity(container.resources?.requests?.[resource] ?? container.resources?.limits?.[resource]);
}

/**
 * True when the template's pods are Guaranteed (upstream ComputePodQOS): every container, init
 * containers too, limits cpu and memory and requests (defaulted) what it limits.
 */
export function isGuaranteedTemplate(spec: Readonly<V1PodSpec>): boolean {
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  if (containers.length === 0) return false;
  return containers.every((container) =>
    SIZED_RESOURCES.every((resource) => {
      const limit = parseQuantity(container.resources?.limits?.[resource]);
      const request = requestOf(container, resource);
      return (
        limit !== undefined &&
        limit.num > 0n &&
        request !== undefined &&
        compareQuantities(limit, request) === 0
      );
    }),
  );
}

/**
 * The limit a sized request of `resource` must stay within for `rule`, and its name in messages:
 * the rule's own limit, or the template's when no limit-to-request ratio applies (its request is
 * explicitly 0); undefined when the limit follows the request.
 */
function fixedLimit(
  rule: Readonly<SizingRule>,
  resource: SizedResource,
  container: Readonly<V1Container>,
): { limit: Quantity; name: string } | undefined {
  const own = rule.limits?.[resource];
  if (own !== undefined) return { limit: own, name: `limits.${resource}` };
  const limit = parseQuantity(container.resources?.limits?.[resource]);
  const request = requestOf(container, resource);
  if (limit === undefined || request === undefined || request.num !== 0n) return undefined;
  return { limit, name: `the template's limit of ${resource} (its request is 0, so no ratio applies)` };
}

/** Why the requests `rule` gives `resource` could exceed a limit that does not follow them. */
function limitViolations(
  field: string,
  rule: Readonly<SizingRule>,
  resource: SizedResource,
  container: Readonly<V1Container>,
): FieldViolation[] {
  const bound = fixedLimit(rule, resource, container);
  if (bound === undefined) return [];
  const above = (q: Quantity | undefined) => q !== undefined && compareQuantities(q, bound.limit) > 0;
  const limitText = `${bound.name} (${formatQuantity(bound.limit)})`;
  const fixed = rule.requests?.[resource];
  if (fixed !== undefined)
    return above(fixed)
      ? [invalid(`${field}.requests.${resource}`, formatQuantity(fixed), `must not be above ${limitText}`)]
      : [];
  if (above(rule.min?.[resource]))
    return [
      invalid(
        `${field}.min.${resource}`,
        formatQuantity(rule.min?.[resource] as Quantity),
        `must not be above ${limitText}`,
      ),
    ];
  const max = rule.max?.[resource];
  if (max === undefined || above(max))
    return [
      invalid(
        `${field}.max.${resource}`,
        max === undefined ? undefined : formatQuantity(max),
        `must be set and not above ${limitText}: a larger node would get a request above its limit`,
      ),
    ];
  return [];
}

/** The violations of `rules` (read from `field`) against the pod template `spec`. */
export function templateViolations(
  field: string,
  rules: readonly SizingRule[],
  spec: Readonly<V1PodSpec> | undefined,
): FieldViolation[] {
  const containers = spec?.containers ?? [];
  const guaranteed = spec !== undefined && isGuaranteedTemplate(spec);
  return rules.flatMap((rule, i) => {
    const at = `${field}[${i}]`;
    const container = containers.find((c) => c.name === rule.container);
    if (container === undefined) {
      const names = containers.map((c) => c.name).join(', ');
      return [invalid(`${at}.container`, rule.container, `must name a container of the template (${names})`)];
    }
    if (guaranteed && rule.limits !== undefined)
      return [forbidden(`${at}.limits`, 'the template is Guaranteed: its limits follow the sized requests')];
    return resourcesSizedBy(rule).flatMap((resource) => limitViolations(at, rule, resource, container));
  });
}
