/**
 * The health rules of a safe rollout: when a node counts as failed for the revision being rolled,
 * and when failed nodes are too many (docs/design.md, 30. Rollouts that stop themselves). Pure:
 * the pods and nodes as listed, and `now`.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { timestampMillis } from '../pod-availability.ts';
import { scaledValue } from '../rolling-update/budget.ts';
import type { RolloutNode } from './rollout-nodes.ts';
import type { FailedNode } from './rollout-record.ts';
import type { RolloutHealth } from './rollout-spec.ts';

function rfc3339(millis: number): string {
  return new Date(millis).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Every restart of the pod's containers, init containers included. */
export function restartsOf(pod: Readonly<V1Pod>): number {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.reduce((sum, s) => sum + (s.restartCount ?? 0), 0);
}

/** The node's Ready condition when it is False or Unknown. */
function notReady(
  node: Readonly<V1Node> | undefined,
): { status: string; since: number | undefined; message: string } | undefined {
  const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined || ready.status === 'True') return undefined;
  return {
    status: ready.status,
    since: timestampMillis(ready.lastTransitionTime),
    message: ready.message ?? '',
  };
}

/**
 * Why `node` is failed for the revision at `now`, or undefined:
 * - its new pod is not available `podReadySeconds` after its creation;
 * - its containers restarted more than `maxRestarts` times within that time of its creation;
 * - its node's Ready condition turned False or Unknown within `nodeReadySeconds` of the pod starting.
 */
export function nodeFailure(
  node: Readonly<RolloutNode>,
  health: Readonly<RolloutHealth>,
  now: Date,
): FailedNode | undefined {
  const pod = node.newPod;
  if (pod === undefined) return undefined;
  const created = timestampMillis(pod.metadata?.creationTimestamp);
  if (created === undefined) return undefined;
  const name = node.view.name;
  const window = health.podReadySeconds * 1000;
  const restarts = restartsOf(pod);
  if (health.maxRestarts !== undefined && restarts > health.maxRestarts && now.getTime() - created <= window)
    return {
      node: name,
      reason: 'TooManyRestarts',
      message: `pod ${pod.metadata?.name} restarted ${restarts} times within ${health.podReadySeconds}s of its creation (at most ${health.maxRestarts})`,
      at: rfc3339(now.getTime()),
    };
  const started = timestampMillis(pod.status?.startTime) ?? created;
  const down = notReady(node.view.node);
  if (health.nodeReadySeconds !== undefined && down?.since !== undefined && down.since >= started) {
    if (down.since - started <= health.nodeReadySeconds * 1000)
      return {
        node: name,
        reason: 'NodeNotReady',
        message: `node turned ${down.status === 'False' ? 'NotReady' : 'Unknown'} ${Math.round((down.since - started) / 1000)}s after pod ${pod.metadata?.name} started${down.message ? `: ${down.message}` : ''}`,
        at: rfc3339(down.since),
      };
  }
  if (!node.available && now.getTime() - created >= window)
    return {
      node: name,
      reason: 'PodNotAvailable',
      message: `pod ${pod.metadata?.name} not available ${health.podReadySeconds}s after its creation`,
      at: rfc3339(created + window),
    };
  return undefined;
}

/**
 * Seconds from `now` until `dueMs`, to the millisecond (at least one): a deadline rounded up to
 * whole seconds would decide up to a second late.
 */
export function secondsUntil(dueMs: number, now: Date): number {
  return Math.max(1, Math.ceil(dueMs - now.getTime())) / 1000;
}

/** The failed nodes tolerated: maxFailedNodes, a percent of the nodes updated so far rounded down. */
export function failuresTolerated(health: Readonly<RolloutHealth>, updatedNodes: number): number {
  return Math.max(0, scaledValue(health.maxFailedNodes, updatedNodes, false) ?? 0);
}

/**
 * Seconds until the earliest moment a pod of the revision would become failed by time alone (not
 * available `podReadySeconds` after its creation), so the rollout looks again then; undefined when
 * none waits.
 */
export function secondsUntilHealthDeadline(
  nodes: readonly RolloutNode[],
  health: Readonly<RolloutHealth>,
  failed: ReadonlySet<string>,
  now: Date,
): number | undefined {
  let earliest: number | undefined;
  for (const node of nodes) {
    if (node.available || node.newPod === undefined || failed.has(node.view.name)) continue;
    const created = timestampMillis(node.newPod.metadata?.creationTimestamp);
    if (created === undefined) continue;
    const due = secondsUntil(created + health.podReadySeconds * 1000, now);
    if (earliest === undefined || due < earliest) earliest = due;
  }
  return earliest;
}

/**
 * Seconds until the last health window of the revision's pods closes: a restart counts until
 * `podReadySeconds` after a pod's creation (with `maxRestarts`), a node turning NotReady until
 * `nodeReadySeconds` after its pod started. Undefined once every window is closed: only then is a
 * rollout complete, or an agent breaking its node a minute after a fast rollout would halt nothing.
 */
export function secondsUntilWindowsClose(
  nodes: readonly RolloutNode[],
  health: Readonly<RolloutHealth>,
  now: Date,
): number | undefined {
  let latest = 0;
  for (const node of nodes) {
    const pod = node.newPod;
    const created = timestampMillis(pod?.metadata?.creationTimestamp);
    if (pod === undefined || created === undefined) continue;
    const started = timestampMillis(pod.status?.startTime) ?? created;
    if (health.maxRestarts !== undefined) latest = Math.max(latest, created + health.podReadySeconds * 1000);
    if (health.nodeReadySeconds !== undefined)
      latest = Math.max(latest, started + health.nodeReadySeconds * 1000);
  }
  const remaining = latest - now.getTime();
  return remaining > 0 ? secondsUntil(latest, now) : undefined;
}
