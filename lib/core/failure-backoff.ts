/**
 * Stateless backoff for replacing failed daemon pods (upstream daemon_controller.go
 * podsShouldBeOnNode with failedPodsBackoff = flowcontrol.NewBackOff(1s, 15min), keyed by
 * DaemonSet uid, generation and node).
 *
 * Design. Upstream keeps the backoff in the controller's memory; our functions keep nothing, so
 * the state travels on the pods themselves:
 * - Every replacement of a Failed pod carries the annotation
 *   `everynode.dev/failure-backoff: "<generation>/<failures>"`: the DaemonSet generation it was
 *   created under and how many failed pods this node's lineage has replaced in that generation
 *   (upstream: how often `Backoff.Next` ran for the key).
 * - When a pod with record `g/f` fails, upstream's `lastUpdate` (the time the previous failed pod
 *   was deleted) is this pod's creationTimestamp, and its `backoff` is `min(1s·2^(f-1), 15min)`.
 *   So: with no record, a record of another generation (the key includes the generation), or a
 *   pod older than twice the maximum (upstream hasExpired), the pod is replaced at once and the
 *   replacement carries `g/1`; otherwise it is replaced once `created + backoff(f)` has passed and
 *   the replacement carries `g/(f+1)`; before that the plan is a requeue for the remaining time.
 * - A Succeeded pod is replaced at once and its record is carried over unchanged (upstream does
 *   not advance the backoff for it).
 * - The replacement is created in the same plan as the delete, under a fresh name (the next
 *   attempt of daemonPodName), so it neither waits for the failed pod's name nor needs a
 *   second message; a Failed pod runs no containers, so the two never run side by side.
 * Nothing outlives the pods: once a healthy pod replaced the lineage and is itself replaced for
 * another reason (rollout, node change), the count starts over, as upstream's per-generation key
 * and its expiry after 30 minutes do.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { timestampMillis } from './pod-availability.ts';

/** Annotation recording `<generation>/<failures>` on replacement pods. */
export const FAILURE_BACKOFF_ANNOTATION = 'everynode.dev/failure-backoff';
/** First backoff step (upstream 1 s). */
export const INITIAL_BACKOFF_SECONDS = 1;
/** Backoff cap (upstream 15 min). */
export const MAX_BACKOFF_SECONDS = 15 * 60;

/** The failure record a pod carries. */
export interface FailureRecord {
  generation: number;
  failures: number;
}

/** What to do with a Failed pod now. */
export type FailedPodDecision =
  | { kind: 'replace'; record: FailureRecord }
  | { kind: 'wait'; afterSeconds: number };

/** The backoff that follows `failures` replacements: 0 for none, then 1 s doubling to 15 min. */
export function backoffSeconds(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(MAX_BACKOFF_SECONDS, INITIAL_BACKOFF_SECONDS * 2 ** Math.min(failures - 1, 30));
}

/** The failure record on `pod`, or undefined when it has none or it does not parse. */
export function failureRecordOf(pod: Readonly<V1Pod>): FailureRecord | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(pod.metadata?.annotations?.[FAILURE_BACKOFF_ANNOTATION] ?? '');
  if (!match) return undefined;
  return { generation: Number(match[1]), failures: Number(match[2]) };
}

/** The annotations that record `record` on a pod. */
export function failureAnnotations(record: Readonly<FailureRecord>): Record<string, string> {
  return { [FAILURE_BACKOFF_ANNOTATION]: `${record.generation}/${record.failures}` };
}

/**
 * Whether the Failed `pod` may be replaced at `now` under DaemonSet `generation`: `replace` with
 * the record its replacement must carry, or `wait` with the seconds left (at least 1).
 */
export function failedPodDecision(pod: Readonly<V1Pod>, generation: number, now: Date): FailedPodDecision {
  const failures = activeFailures(pod, generation, now);
  const created = timestampMillis(pod.metadata?.creationTimestamp) ?? 0;
  const remainingMillis = created + backoffSeconds(failures) * 1000 - now.getTime();
  if (remainingMillis > 0)
    return { kind: 'wait', afterSeconds: Math.max(1, Math.ceil(remainingMillis / 1000)) };
  return { kind: 'replace', record: { generation, failures: failures + 1 } };
}

/**
 * The record a replacement of the Succeeded `pod` carries: its own when it belongs to
 * `generation`, none otherwise.
 */
export function carriedFailureRecord(pod: Readonly<V1Pod>, generation: number): FailureRecord | undefined {
  const record = failureRecordOf(pod);
  return record && record.generation === generation ? record : undefined;
}

/** The failures that still count for `pod`: 0 for another generation or after expiry. */
function activeFailures(pod: Readonly<V1Pod>, generation: number, now: Date): number {
  const record = failureRecordOf(pod);
  if (!record || record.generation !== generation) return 0;
  const created = timestampMillis(pod.metadata?.creationTimestamp);
  // Upstream hasExpired: a key untouched for more than twice the cap starts over.
  if (created === undefined || now.getTime() - created > 2 * MAX_BACKOFF_SECONDS * 1000) return 0;
  return record.failures;
}
