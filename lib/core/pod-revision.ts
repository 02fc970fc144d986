/**
 * Which revision a daemon pod runs (upstream pkg/controller/daemon/util daemonset_util.go
 * IsPodUpdated and GetTemplateGeneration; update.go findUpdatedPodsOnNode), and whether it is
 * current: of the current revision and of the size its node calls for (node-sizing/pod-size.ts).
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
  POD_TEMPLATE_GENERATION_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
} from './daemon-set.ts';
import { hasNodeSize } from './node-sizing/pod-size.ts';
import { rawNodeSizing } from './node-sizing/sizing-spec.ts';
import { isPodTerminating } from './pod-availability.ts';

/**
 * True when `pod` runs the current revision: its controller-revision-hash label equals
 * `currentHash`, or (for pods of old controllers) its pod-template-generation label equals the
 * DaemonSet's deprecated template-generation annotation (upstream IsPodUpdated). Not the latter
 * while the DaemonSet has node-sizing rules: on apps/v1 they are an annotation, whose change makes
 * a new revision but moves no template generation, so every pod of the old rules would match it.
 */
export function isPodUpdated(pod: Readonly<V1Pod>, currentHash: string, ds: Readonly<DaemonSet>): boolean {
  const labels = pod.metadata?.labels ?? {};
  const generation = rawNodeSizing(ds) === undefined ? templateGeneration(ds) : undefined;
  const templateMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === generation;
  const hashMatches = currentHash !== '' && labels[CONTROLLER_REVISION_HASH_LABEL] === currentHash;
  return hashMatches || templateMatches;
}

/**
 * True when `pod` is current: it runs the current revision ({@link isPodUpdated}) and has the size
 * `ds`'s node-sizing rules give it on `node` (node-sizing/pod-size.ts). A pod of the current
 * revision whose node's allocatable or labels changed is not current: the rolling update updates
 * it like any old pod, and the status does not count it as updated. What the rolling update, the
 * status counts and the pair plan's surge rule all ask (the safe rollout's steps count revisions:
 * rollout-nodes.ts); `node` undefined (a vanished node) judges by the revision alone. Upstream has
 * no sizing: without rules it is IsPodUpdated.
 */
export function isPodCurrent(
  pod: Readonly<V1Pod>,
  currentHash: string,
  ds: Readonly<DaemonSet>,
  node: Readonly<V1Node> | undefined,
): boolean {
  return isPodUpdated(pod, currentHash, ds) && hasNodeSize(pod, ds, node);
}

/** The DaemonSet's template generation annotation when it parses as an integer (upstream GetTemplateGeneration). */
function templateGeneration(ds: Readonly<DaemonSet>): string | undefined {
  const value = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return value !== undefined && /^-?\d+$/.test(value) ? String(Number.parseInt(value, 10)) : undefined;
}

/** The non-terminating pods of one node split by revision, or `ok: false` when either has several. */
export type UpdatedPodsOnNode =
  | { ok: true; newPod: V1Pod | undefined; oldPod: V1Pod | undefined }
  | { ok: false };

/**
 * The one new and one old non-terminating pod on a node (upstream findUpdatedPodsOnNode); not ok
 * when there are several of either, which the pair plan prunes first. New is current
 * ({@link isPodCurrent} on `node`): a pod of the current revision with the wrong size is old.
 */
export function findUpdatedPodsOnNode(
  ds: Readonly<DaemonSet>,
  pods: readonly V1Pod[],
  currentHash: string,
  node: Readonly<V1Node> | undefined,
): UpdatedPodsOnNode {
  let newPod: V1Pod | undefined;
  let oldPod: V1Pod | undefined;
  for (const pod of pods) {
    if (isPodTerminating(pod)) continue;
    if (isPodCurrent(pod, currentHash, ds, node)) {
      if (newPod !== undefined) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod !== undefined) return { ok: false };
      oldPod = pod;
    }
  }
  return { ok: true, newPod, oldPod };
}
