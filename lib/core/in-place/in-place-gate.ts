/**
 * The pod readiness gate of in-place updates, `everynode.dev/InPlaceUpdateReady` (docs/design.md,
 * 31. In-place updates), as OpenKruise's `InPlaceUpdateReady` (apis/apps/pub inplace_update.go,
 * pkg/util/inplaceupdate): a pod of a DaemonSet that updates in place (`inPlace: IfPossible`) is
 * created with the gate in `spec.readinessGates`; everynode sets its condition True once the pod
 * exists, False (with the pod's Ready False, as Kruise's SetPodReadyCondition writes it) before the
 * patch that restarts a container, and True again once the update settled
 * (in-place-state.ts). The kubelet reports the pod Ready only while the condition is True, so a
 * Service stops sending the pod traffic before its container is killed and until it runs again.
 *
 * The kubelet treats a gate whose condition does not exist as not ready (upstream
 * pkg/kubelet/status/generate.go GeneratePodReadyCondition), and kube-apiserver drops the status
 * of a pod being created, so a gated pod costs one status write after its create. Pods of a
 * DaemonSet that does not update in place carry no gate and cost nothing. `spec.readinessGates`
 * cannot change on a running pod, so a pod created without the gate (before this, by the built-in
 * controller before a migration, or while the DaemonSet said `Never`) is still updated in place,
 * without the gate: the kubelet turns it not ready when it kills the container.
 */
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import type { ImagesChange, ResourcesChange } from './in-place-change.ts';
import { inPlaceModeOf } from './in-place-setting.ts';
import { pendingInPlaceUpdate } from './in-place-state.ts';

/** The condition type of the gate. */
export const IN_PLACE_GATE = 'everynode.dev/InPlaceUpdateReady';

/** The reason of the gate's False condition (Kruise's wording). */
export const IN_PLACE_GATE_CLOSED_REASON = 'StartInPlaceUpdate';

/** True when pods `ds` creates carry the gate: it updates its pods in place. */
export function createsGatedPods(ds: Readonly<DaemonSet>): boolean {
  return inPlaceModeOf(ds) === 'IfPossible';
}

/** `pod` with the gate added to its readiness gates (a copy; `pod` itself when it has it). */
export function withInPlaceGate(pod: Readonly<V1Pod>): V1Pod {
  if (hasInPlaceGate(pod) || pod.spec === undefined) return pod as V1Pod;
  const readinessGates = [...(pod.spec.readinessGates ?? []), { conditionType: IN_PLACE_GATE }];
  return { ...pod, spec: { ...pod.spec, readinessGates } };
}

/** True when the pod carries the gate in `spec.readinessGates`. */
export function hasInPlaceGate(pod: Readonly<V1Pod>): boolean {
  return pod.spec?.readinessGates?.some((g) => g.conditionType === IN_PLACE_GATE) ?? false;
}

/** The pod's condition of type `type`, if any. */
function conditionOf(pod: Readonly<V1Pod>, type: string): V1PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/**
 * True when the gate holds the pod not ready on everynode's say: it carries the gate and the
 * gate's condition exists and is not True (Kruise isDaemonPodAvailable). An absent condition is
 * the kubelet's to judge (its Ready says False until the condition is written).
 */
export function isHeldByInPlaceGate(pod: Readonly<V1Pod>): boolean {
  const condition = conditionOf(pod, IN_PLACE_GATE);
  return hasInPlaceGate(pod) && condition !== undefined && condition.status !== 'True';
}

/**
 * True when everynode owes the pod its gate's True condition: it carries the gate, the condition
 * is not True (absent: just created; False: an in-place update), no in-place update of it is
 * pending, and it is neither going away nor finished.
 */
export function gateToOpen(pod: Readonly<V1Pod>): boolean {
  if (!hasInPlaceGate(pod) || conditionOf(pod, IN_PLACE_GATE)?.status === 'True') return false;
  // Going away or finished (pod-availability.ts isPodTerminating, isPodTerminal; not imported:
  // pod-availability.ts imports this file).
  if (pod.metadata?.deletionTimestamp || ['Failed', 'Succeeded'].includes(pod.status?.phase ?? ''))
    return false;
  return pendingInPlaceUpdate(pod) === undefined;
}

/**
 * True when the gate is owed its True after an in-place update closed it (its condition is False
 * and the update settled): the change of a pod the relay forwards (cluster-view/decision-facets.ts),
 * which a created pod, whose condition is not there yet, does not make.
 */
export function gateToReopen(pod: Readonly<V1Pod>): boolean {
  return conditionOf(pod, IN_PLACE_GATE) !== undefined && gateToOpen(pod);
}

/**
 * True when the in-place update `change` of `pod` closes its gate first: the pod has the gate and a
 * container restarts — an image changes, or a resized container's resize policy restarts it
 * (RestartContainer). A change of labels alone, or a resize the containers take running, leaves the
 * pod serving, as Kruise's defaultCheckPodNeedsBeUnready does for a resize.
 */
export function closesGateFor(pod: Readonly<V1Pod>, change: ImagesChange | ResourcesChange): boolean {
  if (!hasInPlaceGate(pod)) return false;
  if (change.type === 'images') return change.containers.length > 0;
  const restarts = (name: string) =>
    pod.spec?.containers
      .find((c) => c.name === name)
      ?.resizePolicy?.some((p) => p.restartPolicy === 'RestartContainer') ?? false;
  return change.containers.some((c) => restarts(c.name));
}

/** The gate's True condition, as of `now`. */
export function openGateCondition(now: Date): V1PodCondition {
  return { type: IN_PLACE_GATE, status: 'True', lastTransitionTime: now };
}

/**
 * The conditions that close the gate of `pod` at `now`: the gate's False condition, and, when the
 * pod's Ready is there and its containers are ready, Ready False as the kubelet will report it
 * (upstream GeneratePodReadyCondition's reason and messages, over every gate of the pod), so the
 * pod leaves its Services' endpoints in the same write rather than at the kubelet's next sync —
 * as Kruise's updateCondition does with SetPodReadyCondition ("We only update the ready condition
 * to False, and let Kubelet update it to True").
 */
export function closeGateConditions(pod: Readonly<V1Pod>, now: Date): V1PodCondition[] {
  const gate: V1PodCondition = {
    type: IN_PLACE_GATE,
    status: 'False',
    reason: IN_PLACE_GATE_CLOSED_REASON,
    lastTransitionTime: now,
  };
  const containersReady = conditionOf(pod, 'ContainersReady')?.status === 'True';
  if (conditionOf(pod, 'Ready') === undefined || !containersReady) return [gate];
  const messages = (pod.spec?.readinessGates ?? []).flatMap(({ conditionType }) => {
    const status = conditionType === IN_PLACE_GATE ? 'False' : conditionOf(pod, conditionType)?.status;
    if (status === undefined)
      return [`corresponding condition of pod readiness gate "${conditionType}" does not exist.`];
    return status === 'True'
      ? []
      : [`the status of pod readiness gate "${conditionType}" is not "True", but ${status}`];
  });
  const ready: V1PodCondition = {
    type: 'Ready',
    status: 'False',
    reason: 'ReadinessGatesNotReady',
    message: messages.join(', '),
    lastTransitionTime: now,
  };
  return [gate, ready];
}
