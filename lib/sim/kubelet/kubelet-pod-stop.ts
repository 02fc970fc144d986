/**
 * How the simulated kubelet kills a pod, as pure data: SIGTERM to its containers, SIGKILL when the
 * grace period is over (upstream pkg/kubelet/kuberuntime killPodWithSyncResult / killContainer).
 * The containers then exit on the schedule `advancePodRun` applies.
 */
import type { V1PodSpec, V1PodStatus } from '@kubernetes/client-node';
import { containerBehaviorOf } from './kubelet-image-markers.ts';
import { type ContainerRun, isTerminalPhase, type PodPhase, type PodRun } from './kubelet-pod-run.ts';

/**
 * `run` with the kubelet killing it from `at`: SIGTERM at `at`, SIGKILL `graceMs` later. A kill
 * already under way keeps its SIGTERM time and takes the earlier SIGKILL — a shorter grace period
 * brings it forward, a longer one never extends it (upstream pkg/kubelet/pod_workers.go
 * calculateEffectiveGracePeriod: the grace period of a pod being killed can only shrink). With `phase`, the run is in that terminal phase.
 */
export function stopPodRun(
  run: Readonly<PodRun>,
  at: number,
  graceMs: number,
  phase?: 'Succeeded' | 'Failed',
): PodRun {
  const killAt = Math.min(run.stopping?.killAt ?? Number.POSITIVE_INFINITY, at + graceMs);
  const stopping = { since: run.stopping?.since ?? at, killAt };
  return { ...run, stopping, phase: phase ?? run.phase };
}

/**
 * A run rebuilt from a stored pod this kubelet never ran (it was down, or started after the pod
 * did): the containers the stored status shows running run from `now` on, the others never
 * started — so a pod that never ran has nothing to stop.
 */
export function runOfStoredPod(
  spec: Readonly<V1PodSpec>,
  status: Readonly<V1PodStatus> | undefined,
  now: number,
): PodRun {
  const running = new Set(
    (status?.containerStatuses ?? []).filter((s) => s.state?.running).map((s) => s.name),
  );
  const containers = spec.containers.map(
    (c): ContainerRun => ({
      name: c.name,
      image: c.image ?? '',
      behavior: containerBehaviorOf(c.image),
      restartCount: 0,
      state: running.has(c.name)
        ? { kind: 'running', startedAt: now, ready: true }
        : { kind: 'waiting', reason: 'ContainerCreating', since: now },
    }),
  );
  const stored = status?.phase;
  const phase: PodPhase = isTerminalPhase(stored) || stored === 'Running' ? stored : 'Pending';
  return { admittedAt: now, phase, podIP: status?.podIP ?? '', containers };
}
