/**
 * The node-sizing rules a ControllerRevision was made with (sizing-revision.ts puts them in its
 * data), read and validated as the DaemonSet's own are: an in-place update sizes the pod for its
 * node by the rules of the revision it moves to, and reads the old revision's to know what the pod
 * was given.
 */
import type { V1ControllerRevision, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import { nodeSizingOf } from './node-sizing.ts';
import { sizingOfRevisionData } from './sizing-revision.ts';
import type { SizingRule } from './sizing-rule.ts';
import { NODE_SIZING_ANNOTATION } from './sizing-spec.ts';

/** Readings by revision object: a rollout step reads the same revisions for every pod. */
const readings = new WeakMap<object, readonly SizingRule[]>();

/**
 * The rules `revision` holds, checked against its `template` (the revision's own); none when it
 * holds none or invalid ones (which sized nothing when the revision was current either).
 */
export function sizingRulesOfRevision(
  revision: Readonly<V1ControllerRevision>,
  template: Readonly<V1PodTemplateSpec>,
): readonly SizingRule[] {
  const known = readings.get(revision);
  if (known !== undefined) return known;
  const value = sizingOfRevisionData(revision.data);
  const rules =
    value === undefined
      ? []
      : nodeSizingOf({ spec: { template, nodeSizing: value, selector: {} } } as unknown as DaemonSet);
  readings.set(revision, rules);
  return rules;
}

/**
 * `ds` holding the rules `revision` was made with instead of its own (none when the revision holds
 * none): a revert aims at a stable revision, and its pods are sized by that revision's rules. The
 * rules go in `spec.nodeSizing`, which wins over the annotation; the annotation is dropped.
 */
export function withRevisionSizing(
  ds: Readonly<DaemonSet>,
  revision: Readonly<V1ControllerRevision>,
): DaemonSet {
  const value = sizingOfRevisionData(revision.data);
  const { [NODE_SIZING_ANNOTATION]: _, ...annotations } = ds.metadata?.annotations ?? {};
  const { nodeSizing: _field, ...spec } = (ds.spec ?? {}) as Record<string, unknown>;
  return {
    ...ds,
    metadata: { ...ds.metadata, annotations },
    spec: { ...spec, ...(value === undefined ? {} : { nodeSizing: value }) },
  } as DaemonSet;
}
