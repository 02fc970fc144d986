/**
 * The parsed shape of a node-sizing rule: one entry of `spec.nodeSizing` (everynode.dev/v1) or of
 * the `everynode.dev/node-sizing` annotation's JSON list (apps/v1).
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { Quantity } from './quantity.ts';

/** The resources a rule may size: the two a node's allocatable and pods/resize both know. */
export const SIZED_RESOURCES = ['cpu', 'memory'] as const;
/** One of {@link SIZED_RESOURCES}. */
export type SizedResource = (typeof SIZED_RESOURCES)[number];

/** An exact fraction (a share of the node: `0.5%` is 1/200). */
export interface Share {
  readonly num: bigint;
  readonly den: bigint;
}

/** Per resource, what a rule says about it; a resource absent is not said. */
export type PerResource<T> = Partial<Readonly<Record<SizedResource, T>>>;

/** One rule, validated. */
export interface SizingRule {
  /** The template container it sizes (a regular container). */
  readonly container: string;
  /** The nodes it applies on; undefined: every node. */
  readonly nodeSelector?: V1LabelSelector;
  /** Fixed requests on those nodes (exclusive with the shares). */
  readonly requests?: PerResource<Quantity>;
  /** A share of the node's status.allocatable of each resource. */
  readonly perAllocatable?: PerResource<Share>;
  /** An amount per pod the node can hold (status.allocatable.pods). */
  readonly perAllocatablePod?: PerResource<Quantity>;
  /** The least a share-sized request may be. */
  readonly min?: PerResource<Quantity>;
  /** The most a share-sized request may be. */
  readonly max?: PerResource<Quantity>;
  /** Fixed limits, instead of the template's limit-to-request ratio. */
  readonly limits?: PerResource<Quantity>;
}

/** The resources `rule` sizes: those of its requests, else those of its shares. */
export function resourcesSizedBy(rule: Readonly<SizingRule>): SizedResource[] {
  const named = (map: PerResource<unknown> | undefined) =>
    SIZED_RESOURCES.filter((resource) => map?.[resource] !== undefined);
  if (rule.requests !== undefined) return named(rule.requests);
  const sized = new Set([...named(rule.perAllocatable), ...named(rule.perAllocatablePod)]);
  return SIZED_RESOURCES.filter((resource) => sized.has(resource));
}
