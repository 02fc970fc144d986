/**
 * A halted rollout with `onFailure: Revert` puts the nodes it updated back on the stable revision
 * (the last one whose rollout completed): the DaemonSet's spec is never changed (a GitOps tool
 * would fight that), so the revert is a rollout *to* the stable revision that the DaemonSet step,
 * the pair steps and the node steps all aim at while the halt holds (docs/design.md, 30).
 */
import type { V1ControllerRevision, V1PodTemplateSpec } from '@kubernetes/client-node';
import { isControlledBy } from '../controller-ref.ts';
import { revisionHashOf } from '../controller-revision.ts';
import { type DaemonSet, TEMPLATE_GENERATION_ANNOTATION } from '../daemon-set.ts';
import { withRevisionSizing } from '../node-sizing/revision-rules.ts';
import { rolloutRecordOf } from './rollout-record.ts';
import { safeRolloutOf } from './rollout-spec.ts';

/**
 * The revision new pods of `ds` get instead of `currentHash`: the stable revision while a rollout
 * of `currentHash` is halted and the DaemonSet asks to revert; undefined otherwise (and when no
 * stable revision is known: there is nothing to go back to).
 */
export function revertRevision(ds: Readonly<DaemonSet>, currentHash: string): string | undefined {
  if (safeRolloutOf(ds).health?.onFailure !== 'Revert') return undefined;
  const record = rolloutRecordOf(ds);
  if (record?.revision !== currentHash || record.haltedAt === undefined) return undefined;
  const stable = record.stableRevision;
  return stable !== undefined && stable !== currentHash ? stable : undefined;
}

/** The pod template a ControllerRevision records (its data is a patch replacing the template). */
export function templateOfRevision(revision: Readonly<V1ControllerRevision>): V1PodTemplateSpec | undefined {
  const template = (revision.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec
    ?.template;
  if (template === undefined || template === null || typeof template !== 'object') return undefined;
  const { $patch: _, ...rest } = template;
  return rest as V1PodTemplateSpec;
}

/**
 * `ds` without its template generation annotation: pods of the current generation match it
 * whatever their hash (upstream IsPodUpdated keeps that for old pods), which would make a pod of
 * the halted revision look like one of the stable revision the revert aims at.
 */
export function withoutTemplateGeneration(ds: Readonly<DaemonSet>): DaemonSet {
  const annotations = ds.metadata?.annotations;
  if (annotations?.[TEMPLATE_GENERATION_ANNOTATION] === undefined) return ds as DaemonSet;
  const { [TEMPLATE_GENERATION_ANNOTATION]: _, ...rest } = annotations;
  return { ...ds, metadata: { ...ds.metadata, annotations: rest } };
}

/** The DaemonSet and revision hash its new pods are made from: the stable revision's while reverting. */
export interface PodTarget {
  readonly ds: DaemonSet;
  readonly hash: string;
}

/**
 * The pod target of `ds` among `revisions` (the namespace's): `ds` with the stable revision's
 * template and that revision's hash while reverting, else `ds` and `currentHash` as they are.
 */
export function podTargetAmong(
  ds: Readonly<DaemonSet>,
  currentHash: string,
  revisions: readonly Readonly<V1ControllerRevision>[],
): PodTarget {
  const stable = revertRevision(ds, currentHash);
  const target = stable === undefined ? undefined : podTargetAt(ds, stable, revisions);
  return target ?? { ds: ds as DaemonSet, hash: currentHash };
}

/** `ds` with the template of its revision of hash `hash` among `revisions`; undefined when none records it. */
export function podTargetAt(
  ds: Readonly<DaemonSet>,
  hash: string,
  revisions: readonly Readonly<V1ControllerRevision>[],
): PodTarget | undefined {
  const revision = revisions.find((r) => isControlledBy(r, ds) && revisionHashOf(r) === hash);
  const template = revision === undefined ? undefined : templateOfRevision(revision);
  if (revision === undefined || template === undefined) return undefined;
  const spec = { ...(ds.spec as NonNullable<DaemonSet['spec']>), template };
  // Sized by the stable revision's node-sizing rules, not the halted revision's.
  return { ds: withRevisionSizing({ ...withoutTemplateGeneration(ds), spec }, revision), hash };
}
