/**
 * Which changes of a watched object can change a decision, so the relay forwards only those
 * (docs/design.md, 7. The relay). Each object is reduced to a few named facets; an update whose
 * facets are all unchanged is a no-op for everynode.
 *
 * - Nodes: labels, taints, unschedulable, readiness, deletion — what placement reads — and the
 *   allocatable cpu, memory and pods node sizing reads (upstream daemon_controller.go
 *   `shouldIgnoreNodeUpdate`, which ignores an update when everything but the conditions'
 *   heartbeat times and the resourceVersion is equal; we are narrower still, ignoring status
 *   images, addresses, capacity and the rest of allocatable, which no decision reads).
 * - Pods: phase, readiness, node binding, deletion — plus the controller reference, so a pod released
 *   by `--cascade=orphan` reaches a DaemonSet step that may adopt it (upstream `updatePod` enqueues on
 *   a controllerRef change for the same reason), and the reason of a PodResizePending condition, so
 *   an in-place resize the node reports Infeasible or Deferred reaches the DaemonSet step that
 *   recreates the pod instead (the pod is already not ready: its readiness does not change), its
 *   revision label, which an in-place update moves (one that changes no image or size changes
 *   nothing else, and the status must count the pod updated), and
 *   the scheduler's reasons while a pending pod is unschedulable on its node (its phase stays
 *   Pending: only its PodScheduled condition says so), which the DaemonSet's status and events show.
 * - DaemonSets: generation (every spec change bumps it), annotations (where apps/v1 carries the
 *   everynode extensions), deletion. Status-only updates — our own status writes — are dropped, so a
 *   status write never loops back as work.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { gateToReopen } from '../../core/in-place/in-place-gate.ts';
import { sizingAllocatable } from '../../core/node-sizing/sizing-allocatable.ts';
import { isPodReady } from '../../core/pod-availability.ts';
import { restartsOf } from '../../core/safe-rollout/rollout-health.ts';
import { schedulerReasons, unschedulableMessage } from '../../core/unschedulable-pods.ts';
import type { TriggeringResource, WatchedObjects } from '../../kube/kube-port.ts';

/** An object reduced to its decision-relevant facets, by facet name. */
export type Facets = Readonly<Record<string, string>>;

/** Sorted `key=value` pairs: equal maps give equal text whatever their key order. */
function mapText(map: Readonly<Record<string, string>> | undefined): string {
  return Object.entries(map ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

function nodeFacets(node: Readonly<V1Node>): Facets {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  // timeAdded is left out: the node lifecycle controller re-stamps it without changing the taint.
  const taints = (node.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
  return {
    labels: mapText(node.metadata?.labels),
    taints: taints.join(','),
    unschedulable: String(node.spec?.unschedulable === true),
    ready,
    deleting: String(node.metadata?.deletionTimestamp !== undefined),
    // What node sizing reads (filters/sized-nodes.ts): never touched by a heartbeat.
    allocatable: mapText(sizingAllocatable(node)),
  };
}

function podFacets(pod: Readonly<V1Pod>, shared: (value: string) => string): Facets {
  return {
    phase: shared(pod.status?.phase ?? ''),
    ready: String(isPodReady(pod)),
    // A restart: what a safe rollout's health rule counts (filters/health-signals.ts).
    restarts: shared(String(restartsOf(pod))),
    node: shared(pod.spec?.nodeName ?? ''),
    deleting: String(pod.metadata?.deletionTimestamp !== undefined),
    controller: shared(controllerOf(pod)?.uid ?? ''),
    // An in-place update settled behind a closed gate: its DaemonSet step opens the gate.
    inPlaceGate: String(gateToReopen(pod)),
    resize: shared(resizePendingReason(pod)),
    // An in-place update moved its revision (a labels-only one changes nothing else): a recount.
    revision: shared(pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? ''),
    // Stuck unschedulable on its node: its DaemonSet step records the condition and the event.
    unschedulable: shared(unschedulableReasons(pod)),
  };
}

/** The scheduler's reasons when `pod` waits unschedulable (core/unschedulable-pods.ts), or ''. */
function unschedulableReasons(pod: Readonly<V1Pod>): string {
  const message = unschedulableMessage(pod);
  return message === undefined ? '' : schedulerReasons(message);
}

/** The reason of the PodResizePending condition holding on `pod` (Infeasible, Deferred), or ''. */
function resizePendingReason(pod: Readonly<V1Pod>): string {
  const pending = pod.status?.conditions?.find((c) => c.type === 'PodResizePending' && c.status === 'True');
  return pending === undefined ? '' : (pending.reason ?? 'Pending');
}

function daemonSetFacets(ds: Readonly<DaemonSet>): Facets {
  const generation = ds.metadata?.generation;
  return {
    spec: generation === undefined ? JSON.stringify(ds.spec ?? {}) : String(generation),
    annotations: mapText(ds.metadata?.annotations),
    deleting: String(ds.metadata?.deletionTimestamp !== undefined),
  };
}

/**
 * The decision-relevant facets of `object`, a `resource` object. `shared` gives the copy to keep of
 * a pod facet's value that other pods repeat (its node's name, its controller's uid, its phase),
 * for a caller that keeps the facets of many (`cluster-view/facet-cache.ts`).
 */
export function facetsOf<R extends TriggeringResource>(
  resource: R,
  object: Readonly<WatchedObjects[R]>,
  shared: (value: string) => string = (value) => value,
): Facets {
  switch (resource) {
    case 'nodes':
      return nodeFacets(object as V1Node);
    case 'pods':
      return podFacets(object as V1Pod, shared);
    default:
      return daemonSetFacets(object as DaemonSet);
  }
}

/**
 * True when `object` is a pod the API server removes in the very request that marked it deleted:
 * deletion grace period 0 and no finalizers (the generic registry's graceless delete writes the
 * deletionTimestamp, then deletes the object at once). Its DELETED event follows and says all this
 * update could, so the update is no trigger of its own: forwarding it would make its pair read the
 * pods to see whether the pod is gone yet.
 */
export function isRemovedAtOnce(resource: TriggeringResource, object: unknown): boolean {
  if (resource !== 'pods') return false;
  const meta = (object as Readonly<V1Pod>).metadata;
  return (
    meta?.deletionTimestamp !== undefined &&
    meta.deletionGracePeriodSeconds === 0 &&
    (meta.finalizers ?? []).length === 0
  );
}

/**
 * True when the pod event (`type`, with the changed facets `changes`) shows `pod` turned ready: its
 * readiness changed and it is ready now, or it was seen ready at its creation (a replayed or resumed
 * watch shows one); never a pod being deleted.
 */
export function turnedReady(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  if (type === 'DELETED' || (type === 'MODIFIED' && !changes.includes('ready'))) return false;
  return isPodReady(pod) && pod.metadata?.deletionTimestamp === undefined;
}

/** Pod phases after which the pod never runs again (upstream podutil.IsPodTerminal). */
const terminalPhases = new Set(['Failed', 'Succeeded']);

/**
 * The names of the facets that differ between `before` and `after`, in facet order; empty when the
 * update is a no-op for everynode. A pod whose phase became Failed or Succeeded also reports
 * `terminal`, the change the router turns into pair work rather than a status refresh.
 */
export function changedFacets(before: Facets, after: Facets): string[] {
  const changed = Object.keys(after).filter((name) => before[name] !== after[name]);
  const phase = after.phase;
  if (changed.includes('phase') && phase !== undefined && terminalPhases.has(phase)) changed.push('terminal');
  return changed;
}
