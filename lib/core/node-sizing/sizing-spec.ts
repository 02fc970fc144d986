/**
 * Reading a DaemonSet's node-sizing rules: `spec.nodeSizing` on everynode.dev/v1, the
 * `everynode.dev/node-sizing` annotation's JSON on apps/v1 (the field wins), like the other
 * extensions. Each entry is parsed to a {@link SizingRule} or to the violations that make it
 * unusable; checks against the pod template are in sizing-template-checks.ts.
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import { type FieldViolation, invalid, notSupported, required } from '../field-violation.ts';
import { labelSelectorViolations } from '../label-selector.ts';
import { isLabelSelectorShape } from '../label-selector-text.ts';
import { compareQuantities, formatQuantity, parsePercent, parseQuantity, type Quantity } from './quantity.ts';
import { type PerResource, type Share, SIZED_RESOURCES, type SizingRule } from './sizing-rule.ts';

/** Annotation holding the rules as JSON on an apps/v1 DaemonSet. */
export const NODE_SIZING_ANNOTATION = 'everynode.dev/node-sizing';
/** The everynode.dev/v1 field holding the rules. */
export const NODE_SIZING_FIELD = 'spec.nodeSizing';

/** The rules as written: where (for violations) and the raw JSON value; undefined when unset. */
export interface RawSizing {
  readonly field: string;
  readonly value: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rules as written, or the violation of an annotation that is not JSON. */
export function rawNodeSizing(ds: Readonly<DaemonSet>): RawSizing | FieldViolation | undefined {
  const value = (ds.spec as Record<string, unknown> | undefined)?.nodeSizing;
  if (value !== undefined && value !== null) return { field: NODE_SIZING_FIELD, value };
  const text = ds.metadata?.annotations?.[NODE_SIZING_ANNOTATION];
  if (text === undefined) return undefined;
  const field = `metadata.annotations[${NODE_SIZING_ANNOTATION}]`;
  try {
    return { field, value: JSON.parse(text) as unknown };
  } catch {
    return invalid(field, text, 'must be JSON');
  }
}

const ENTRY_FIELDS = [
  'container',
  'nodeSelector',
  'requests',
  'perAllocatable',
  'perAllocatablePod',
  'min',
  'max',
  'limits',
];

type Parsed<T> = { value: T | undefined; violations: FieldViolation[] };

/** A map of resource to value, each read by `parse` (undefined: `message`). */
function perResource<T>(
  field: string,
  raw: unknown,
  parse: (value: unknown) => T | undefined,
  message: string,
): Parsed<PerResource<T>> {
  if (raw === undefined || raw === null) return { value: undefined, violations: [] };
  if (!isRecord(raw)) return { value: undefined, violations: [invalid(field, raw, 'must be an object')] };
  const violations: FieldViolation[] = [];
  const value: Partial<Record<(typeof SIZED_RESOURCES)[number], T>> = {};
  for (const [resource, amount] of Object.entries(raw)) {
    const known = SIZED_RESOURCES.find((name) => name === resource);
    if (known === undefined) {
      violations.push(notSupported(`${field}.${resource}`, resource, SIZED_RESOURCES));
      continue;
    }
    const parsed = parse(amount);
    if (parsed === undefined) violations.push(invalid(`${field}.${resource}`, amount, message));
    else value[known] = parsed;
  }
  return { value, violations };
}

const QUANTITY_MESSAGE = 'must be a non-negative quantity such as 250m, 1.5, 512Mi or 2Gi';

function share(raw: unknown): Share | undefined {
  const percent = parsePercent(raw);
  return percent !== undefined && percent.num > 0n && percent.num <= percent.den ? percent : undefined;
}

/** min ≤ max for every resource both name. */
function boundViolations(field: string, min?: PerResource<Quantity>, max?: PerResource<Quantity>) {
  return SIZED_RESOURCES.flatMap((resource) => {
    const [low, high] = [min?.[resource], max?.[resource]];
    return low !== undefined && high !== undefined && compareQuantities(low, high) > 0
      ? [
          invalid(
            `${field}.min.${resource}`,
            formatQuantity(low),
            `must not be above max (${formatQuantity(high)})`,
          ),
        ]
      : [];
  });
}

/** One entry, checked for its own shape (not against the template). */
function parseEntry(field: string, entry: unknown): Parsed<SizingRule> {
  if (!isRecord(entry)) return { value: undefined, violations: [invalid(field, entry, 'must be an object')] };
  const violations = Object.keys(entry)
    .filter((key) => !ENTRY_FIELDS.includes(key))
    .map((key) => invalid(`${field}.${key}`, entry[key], 'unknown field'));
  const { container } = entry;
  if (typeof container !== 'string' || container === '')
    violations.push(required(`${field}.container`, 'must name a container of the template'));
  let nodeSelector: V1LabelSelector | undefined;
  if (entry.nodeSelector !== undefined && entry.nodeSelector !== null) {
    if (isLabelSelectorShape(entry.nodeSelector)) {
      nodeSelector = entry.nodeSelector;
      violations.push(...labelSelectorViolations(nodeSelector, `${field}.nodeSelector`));
    } else violations.push(invalid(`${field}.nodeSelector`, entry.nodeSelector, 'must be a label selector'));
  }
  const quantities = (key: string) =>
    perResource(`${field}.${key}`, entry[key], parseQuantity, QUANTITY_MESSAGE);
  const parts = {
    requests: quantities('requests'),
    perAllocatable: perResource(
      `${field}.perAllocatable`,
      entry.perAllocatable,
      share,
      'must be a percent above 0% and at most 100%, such as 0.5%',
    ),
    perAllocatablePod: quantities('perAllocatablePod'),
    min: quantities('min'),
    max: quantities('max'),
    limits: quantities('limits'),
  };
  for (const part of Object.values(parts)) violations.push(...part.violations);
  violations.push(...boundViolations(field, parts.min.value, parts.max.value));
  violations.push(...exclusivityViolations(field, entry));
  if (violations.length > 0) return { value: undefined, violations };
  const rule: SizingRule = {
    container: container as string,
    ...(nodeSelector === undefined ? {} : { nodeSelector }),
    ...Object.fromEntries(
      Object.entries(parts).flatMap(([key, part]) => (part.value ? [[key, part.value]] : [])),
    ),
  };
  return { value: rule, violations: [] };
}

/**
 * What an entry may not combine: fixed requests with shares or bounds; bounds or limits for a
 * resource the entry does not size; an entry sizing nothing.
 */
function exclusivityViolations(field: string, entry: Record<string, unknown>): FieldViolation[] {
  const keysOf = (key: string) => (isRecord(entry[key]) ? Object.keys(entry[key] as object) : []);
  const fixed = isRecord(entry.requests);
  const violations: FieldViolation[] = [];
  if (fixed && (isRecord(entry.perAllocatable) || isRecord(entry.perAllocatablePod)))
    violations.push(
      invalid(`${field}.requests`, entry.requests, 'may not be set with perAllocatable or perAllocatablePod'),
    );
  if (fixed)
    for (const key of ['min', 'max'])
      if (isRecord(entry[key]))
        violations.push(invalid(`${field}.${key}`, entry[key], 'applies only to shares: requests are fixed'));
  const sized = new Set(
    fixed ? keysOf('requests') : [...keysOf('perAllocatable'), ...keysOf('perAllocatablePod')],
  );
  if (sized.size === 0)
    violations.push(
      required(`${field}.requests`, 'requests, perAllocatable or perAllocatablePod must name cpu or memory'),
    );
  for (const key of fixed ? ['limits'] : ['min', 'max', 'limits'])
    for (const resource of keysOf(key))
      if (!sized.has(resource) && SIZED_RESOURCES.some((name) => name === resource))
        violations.push(
          invalid(
            `${field}.${key}.${resource}`,
            (entry[key] as Record<string, unknown>)[resource],
            `the entry does not size ${resource}`,
          ),
        );
  return violations;
}

/** The rules and every violation found reading them (not yet checked against the template). */
export function readNodeSizing(ds: Readonly<DaemonSet>): {
  rules: SizingRule[];
  violations: FieldViolation[];
} {
  const raw = rawNodeSizing(ds);
  if (raw === undefined) return { rules: [], violations: [] };
  if ('type' in raw) return { rules: [], violations: [raw] };
  if (!Array.isArray(raw.value))
    return { rules: [], violations: [invalid(raw.field, raw.value, 'must be a list of sizing entries')] };
  const parsed = raw.value.map((entry, i) => parseEntry(`${raw.field}[${i}]`, entry));
  const violations = parsed.flatMap((p) => p.violations);
  if (violations.length > 0) return { rules: [], violations };
  return { rules: parsed.flatMap((p) => (p.value ? [p.value] : [])), violations: [] };
}
