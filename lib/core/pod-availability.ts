/**
 * Pod readiness, availability and ordering, ported from upstream pkg/api/v1/pod (podutil
 * IsPodReady / IsPodAvailable) and pkg/controller/daemon daemon_controller.go
 * (podByCreationTimestampAndPhase).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { isHeldByInPlaceGate } from './in-place/in-place-gate.ts';
import { pendingInPlaceUpdate } from './in-place/in-place-state.ts';

/**
 * Milliseconds since the epoch of a Kubernetes timestamp, which is a `Date` when it came through the
 * client's deserializer and an RFC 3339 string when it came from raw JSON or YAML; undefined when
 * absent or unparsable.
 */
export function timestampMillis(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === 'string' && value !== '') {
    const millis = Date.parse(value);
    return Number.isNaN(millis) ? undefined : millis;
  }
  return undefined;
}

/**
 * True when the pod's `Ready` condition is `True` (upstream podutil.IsPodReady), no in-place
 * update of it is pending (`in-place/in-place-state.ts`: the Ready condition lags the patch) and
 * its in-place readiness gate, if it has one, is not closed (`in-place/in-place-gate.ts`: the
 * Ready condition lags the gate's False until the kubelet's next sync).
 */
export function isPodReady(pod: Readonly<V1Pod>): boolean {
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return ready && pendingInPlaceUpdate(pod) === undefined && !isHeldByInPlaceGate(pod);
}

/**
 * When the pod became ready in milliseconds since the epoch (its Ready condition's
 * lastTransitionTime), or undefined when it is not ready or the time is unknown.
 */
export function readySinceMillis(pod: Readonly<V1Pod>): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  return ready ? timestampMillis(ready.lastTransitionTime) : undefined;
}

/**
 * True when the pod is ready and has been for more than `minReadySeconds` at `now` (upstream
 * podutil.IsPodAvailable: with minReadySeconds 0 readiness suffices; otherwise the Ready condition's
 * lastTransitionTime plus minReadySeconds must be strictly before now, and an unknown transition
 * time never counts as available).
 */
export function isPodAvailable(pod: Readonly<V1Pod>, minReadySeconds: number, now: Date): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = readySinceMillis(pod);
  return since !== undefined && since + minReadySeconds * 1000 < now.getTime();
}

/**
 * Seconds until a ready pod becomes available under `minReadySeconds` (at least 1, rounded up so
 * that a look at that time sees it available), or undefined when the pod is not ready, already
 * available, or its ready time is unknown.
 */
export function secondsUntilAvailable(
  pod: Readonly<V1Pod>,
  minReadySeconds: number,
  now: Date,
): number | undefined {
  if (!isPodReady(pod) || isPodAvailable(pod, minReadySeconds, now)) return undefined;
  const since = readySinceMillis(pod);
  if (since === undefined) return undefined;
  const remainingMillis = since + minReadySeconds * 1000 - now.getTime();
  return Math.max(1, Math.floor(remainingMillis / 1000) + 1);
}

/** True when the pod has a deletionTimestamp: it is going away and must not be deleted again. */
export function isPodTerminating(pod: Readonly<V1Pod>): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/** True when the pod reached a terminal phase (Failed or Succeeded; upstream podutil.IsPodTerminal). */
export function isPodTerminal(pod: Readonly<V1Pod>): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

/**
 * True when the pod is terminal and already being deleted: upstream getNodesToDaemonPods drops such
 * pods ("the DS controller doesn't have anything else to do with it"), so they neither occupy a
 * node nor count in status.
 */
export function isDeletedTerminalPod(pod: Readonly<V1Pod>): boolean {
  return isPodTerminal(pod) && isPodTerminating(pod);
}

/**
 * The pods sorted oldest first, as upstream podByCreationTimestampAndPhase does: pods bound to a
 * node (spec.nodeName) before unscheduled ones, then by creationTimestamp, then by name. Returns a
 * new array; the input is not reordered.
 */
export function oldestFirst<T extends Readonly<V1Pod>>(pods: readonly T[]): T[] {
  return [...pods].sort(compareOldestFirst);
}

function compareOldestFirst(a: Readonly<V1Pod>, b: Readonly<V1Pod>): number {
  const aScheduled = (a.spec?.nodeName ?? '') !== '';
  const bScheduled = (b.spec?.nodeName ?? '') !== '';
  if (aScheduled !== bScheduled) return aScheduled ? -1 : 1;
  const aTime = timestampMillis(a.metadata?.creationTimestamp) ?? 0;
  const bTime = timestampMillis(b.metadata?.creationTimestamp) ?? 0;
  if (aTime !== bTime) return aTime - bTime;
  const aName = a.metadata?.name ?? '';
  const bName = b.metadata?.name ?? '';
  return aName < bName ? -1 : aName > bName ? 1 : 0;
}
