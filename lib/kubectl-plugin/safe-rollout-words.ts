/**
 * How the plugin names the parts of a safe rollout (docs/design.md, 30. Rollouts that stop
 * themselves) in `rollout status` and `rollout plan`: a step (`1 node`, `50% of nodes`,
 * `pause until resumed`, `pause 300s`) and a topology domain (`zone a` for the value `a` of
 * `topology.kubernetes.io/zone`, `(no zone)` for the nodes without the label).
 */

import type { RolloutStep } from '../core/safe-rollout/rollout-spec.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';
import { managedResourceOf } from '../kube/managed-kind.ts';

/** `n node` or `n nodes`. */
export function nodeCount(n: number): string {
  return `${n} node${n === 1 ? '' : 's'}`;
}

/** What one step does, in a few words. */
export function stepWords(step: Readonly<RolloutStep>): string {
  if ('pause' in step)
    return step.pause.seconds === undefined ? 'pause until resumed' : `pause ${step.pause.seconds}s`;
  return typeof step.nodes === 'number' ? nodeCount(step.nodes) : `${step.nodes} of nodes`;
}

/** The domain `value` of `topologyKey`: the key's last segment and the value. */
export function domainName(topologyKey: string, value: string): string {
  const short = topologyKey.slice(topologyKey.lastIndexOf('/') + 1);
  return value === '' ? `(no ${short})` : `${short} ${value}`;
}

/**
 * How kubectl names the resource of `kind` in the errors of its rollout commands
 * (`<resource>.<group>`, cmd/rollout/rollout_resume.go): `daemonsets.everynode.dev`, `daemonsets.apps`.
 */
export function resourceString(kind: ManagedKind): string {
  const { plural, group } = managedResourceOf(kind);
  return `${plural}.${group}`;
}
