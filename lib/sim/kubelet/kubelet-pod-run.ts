/**
 * The simulated kubelet's view of one pod as pure data and pure transitions over time: admitted,
 * containers created, running, ready, crashing and restarting, exited, stopped by the kubelet.
 * `advancePodRun` applies every transition due by `now` at its exact due time and says when the
 * next one is due, so one timer queue can drive 100,000 pods.
 */
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { nodeMatchesRequiredAffinity } from '../../core/node-affinity.ts';
import { type ContainerRestart, restartExitTime, restartedContainer } from './kubelet-container-restart.ts';
import { type ContainerBehavior, containerBehaviorOf } from './kubelet-image-markers.ts';
import { admittedResources, type PodResources } from './kubelet-resize.ts';

/** A container that ran and stopped. */
export interface Termination {
  readonly exitCode: number;
  readonly reason: 'Error' | 'Completed';
  readonly startedAt: number;
  readonly finishedAt: number;
}

/** Where a container is, with the time it got there (ms since the epoch). */
export type ContainerState =
  | { readonly kind: 'waiting'; readonly reason: 'ContainerCreating'; readonly since: number }
  | {
      readonly kind: 'waiting';
      readonly reason: 'CrashLoopBackOff';
      readonly since: number;
      readonly backOffMs: number;
    }
  | { readonly kind: 'running'; readonly startedAt: number; readonly ready: boolean }
  | ({ readonly kind: 'terminated' } & Termination);

/** One container of a pod run. */
export interface ContainerRun {
  readonly name: string;
  readonly image: string;
  readonly behavior: ContainerBehavior;
  readonly restartCount: number;
  readonly state: ContainerState;
  readonly lastTermination?: Termination;
  /** Set while the kubelet restarts it for a new image or a resize (kubelet-container-restart.ts). */
  readonly restart?: ContainerRestart;
}

/** Pod phases the kubelet reports. */
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** The kubelet is killing the pod: SIGTERM went to its containers at `since`, SIGKILL goes at `killAt`. */
export interface Stopping {
  readonly since: number;
  readonly killAt: number;
}

/** What the kubelet knows of a pod it was given. */
export interface PodRun {
  readonly admittedAt: number;
  readonly phase: PodPhase;
  /** Set when admission rejected the pod (phase Failed). */
  readonly rejection?: { readonly reason: string; readonly message: string };
  readonly podIP: string;
  readonly containers: readonly ContainerRun[];
  /** Set once the kubelet kills the pod (deleted, or put in a terminal phase through the API). */
  readonly stopping?: Stopping;
  /** Allocated and actuated resources, and a resize pending or in progress (kubelet-resize.ts). */
  readonly resources?: PodResources;
}

/** Real milliseconds of each delay, already scaled by the cluster's timeScale. */
export interface RunDelays {
  /** From a pod's admission until its containers run. */
  readonly startMs: number;
  /** The part of `startMs` spent on the sandbox, which a container restarted in place skips (default 0). */
  readonly sandboxMs?: number;
  readonly readyMs: number;
  readonly exitMs: number;
  readonly backOffMs: number;
  readonly maxBackOffMs: number;
  /** How long a container that heeds SIGTERM takes to exit. */
  readonly stopMs: number;
}

/**
 * The run for a pod the kubelet of `node` has just been given: rejected (phase Failed) when the
 * node does not match the pod's nodeSelector / required node affinity — the kubelet re-checks
 * what the scheduler checked, so a pod created with `spec.nodeName` cannot skip it (upstream
 * pkg/kubelet/lifecycle/predicate.go, generalFilter) — else Pending with containers being created.
 */
export function admitPod(
  spec: Readonly<V1PodSpec>,
  node: Readonly<V1Node>,
  now: number,
  podIP: string,
): PodRun {
  const containers = spec.containers.map(
    (c): ContainerRun => ({
      name: c.name,
      image: c.image ?? '',
      behavior: containerBehaviorOf(c.image),
      restartCount: 0,
      state: { kind: 'waiting', reason: 'ContainerCreating', since: now },
    }),
  );
  if (!nodeMatchesRequiredAffinity(node, spec)) {
    const rejection = { reason: 'NodeAffinity', message: 'Pod was rejected: Predicate NodeAffinity failed' };
    return { admittedAt: now, phase: 'Failed', rejection, podIP: '', containers };
  }
  return { admittedAt: now, phase: 'Pending', podIP, containers, resources: admittedResources(spec) };
}

/**
 * `run` with every transition due at or before `now` applied, and when the next one is due
 * (undefined when nothing more will happen on its own).
 */
export function advancePodRun(
  run: Readonly<PodRun>,
  now: number,
  delays: Readonly<RunDelays>,
): { run: PodRun; dueAt: number | undefined } {
  let current: PodRun = run;
  for (;;) {
    // An ended pod runs nothing more on its own; only a kill still stops what is left running.
    if (isTerminalPhase(current.phase) && !current.stopping) return { run: current, dueAt: undefined };
    const next = nextContainerTransition(current, delays);
    if (!next || next.at > now) return { run: current, dueAt: next?.at };
    const containers = current.containers.map((c, i) =>
      i === next.index ? transition(c, next.at, current.stopping, delays) : c,
    );
    // Pods never leave a terminal phase (upstream kubelet generateAPIPodStatus: "pods are not
    // allowed to transition out of terminal phases").
    const phase = isTerminalPhase(current.phase) ? current.phase : podPhaseOf(containers);
    current = { ...current, containers, phase };
  }
}

/** True for the phases a pod never leaves: Succeeded and Failed. */
export function isTerminalPhase(phase: string | undefined): phase is 'Succeeded' | 'Failed' {
  return phase === 'Succeeded' || phase === 'Failed';
}

function nextContainerTransition(
  run: Readonly<PodRun>,
  delays: Readonly<RunDelays>,
): { index: number; at: number } | undefined {
  let next: { index: number; at: number } | undefined;
  run.containers.forEach((c, index) => {
    const at = run.stopping ? stopTime(c, run.stopping, delays) : transitionTime(c, delays);
    if (at !== undefined && (!next || at < next.at)) next = { index, at };
  });
  return next;
}

/** When `c` next changes on its own. */
function transitionTime(c: Readonly<ContainerRun>, delays: Readonly<RunDelays>): number | undefined {
  if (c.restart) return restartExitTime(c, delays);
  const state = c.state;
  switch (state.kind) {
    case 'waiting':
      return state.reason === 'ContainerCreating'
        ? state.since + delays.startMs - (c.restartCount > 0 ? (delays.sandboxMs ?? 0) : 0)
        : state.since + state.backOffMs;
    case 'running':
      if (keepsRunning(c)) return state.ready ? undefined : state.startedAt + delays.readyMs;
      return c.behavior === 'unready' ? undefined : state.startedAt + delays.exitMs;
    case 'terminated':
      return undefined;
  }
}

/** True for containers that run until stopped and become ready. */
function keepsRunning(c: Readonly<ContainerRun>): boolean {
  return c.behavior === 'run' || c.behavior === 'ignore-sigterm' || c.behavior === 'break-node';
}

/**
 * When a container of a pod being killed exits: a running one `stopMs` after SIGTERM, or at
 * SIGKILL when that comes first or it ignores SIGTERM; one that is not running never starts again
 * (upstream kubelet killPod: SIGTERM, then SIGKILL once the grace period is over).
 */
function stopTime(
  c: Readonly<ContainerRun>,
  stopping: Readonly<Stopping>,
  delays: Readonly<RunDelays>,
): number | undefined {
  if (c.state.kind !== 'running') return undefined;
  if (c.behavior === 'ignore-sigterm') return stopping.killAt;
  return Math.min(stopping.since + delays.stopMs, stopping.killAt);
}

/**
 * The CrashLoopBackOff delay before restart number `restartCount + 1`: the base doubling per
 * restart up to the cap (upstream kubelet backOff: initial 10 s, MaxContainerBackOff 300 s).
 */
function backOff(c: Readonly<ContainerRun>, delays: Readonly<RunDelays>): number {
  return Math.min(delays.backOffMs * 2 ** Math.min(c.restartCount, 30), delays.maxBackOffMs);
}

function transition(
  c: Readonly<ContainerRun>,
  at: number,
  stopping: Readonly<Stopping> | undefined,
  delays: Readonly<RunDelays>,
): ContainerRun {
  const state = c.state;
  if (stopping && state.kind === 'running') {
    // Killed by SIGTERM (exit code 128 + 15) or, at the end of the grace period, SIGKILL (128 + 9).
    const heeded = c.behavior !== 'ignore-sigterm' && stopping.since + delays.stopMs <= stopping.killAt;
    const exitCode = heeded ? 143 : 137;
    const killed = { exitCode, reason: 'Error' as const, startedAt: state.startedAt, finishedAt: at };
    return { ...c, state: { kind: 'terminated', ...killed } };
  }
  if (c.restart) return restartedContainer(c, at, delays);
  switch (state.kind) {
    case 'waiting': {
      const restarted = state.reason === 'CrashLoopBackOff';
      const running = { kind: 'running' as const, startedAt: at, ready: false };
      return { ...c, state: running, restartCount: c.restartCount + (restarted ? 1 : 0) };
    }
    case 'running': {
      if (keepsRunning(c)) return { ...c, state: { ...state, ready: true } };
      return exited(c, state.startedAt, at, delays);
    }
    case 'terminated':
      return c;
  }
}

function exited(
  c: Readonly<ContainerRun>,
  startedAt: number,
  at: number,
  delays: Readonly<RunDelays>,
): ContainerRun {
  const success = c.behavior === 'succeed';
  const termination: Termination = {
    exitCode: success ? 0 : 1,
    reason: success ? 'Completed' : 'Error',
    startedAt,
    finishedAt: at,
  };
  if (c.behavior === 'crashloop') {
    // restartPolicy Always: the kubelet waits out the back-off, then starts the container again.
    const waiting = {
      kind: 'waiting' as const,
      reason: 'CrashLoopBackOff' as const,
      since: at,
      backOffMs: backOff(c, delays),
    };
    return { ...c, state: waiting, lastTermination: termination };
  }
  return { ...c, state: { kind: 'terminated', ...termination } };
}

/**
 * The pod phase its containers imply: Failed once a `fail` container exited, Succeeded once every
 * container exited 0, Pending until some container has started, else Running.
 */
export function podPhaseOf(containers: readonly ContainerRun[]): PodPhase {
  const terminated = containers.filter((c) => c.state.kind === 'terminated');
  if (terminated.some((c) => c.state.kind === 'terminated' && c.state.exitCode !== 0)) return 'Failed';
  if (containers.length > 0 && terminated.length === containers.length) return 'Succeeded';
  const started = containers.some(
    (c) => c.state.kind !== 'waiting' || c.state.reason !== 'ContainerCreating',
  );
  return started ? 'Running' : 'Pending';
}

/** True when every container is running and ready (the pod's Ready / ContainersReady condition). */
export function containersReady(run: Readonly<PodRun>): boolean {
  return run.containers.every((c) => c.state.kind === 'running' && c.state.ready);
}
