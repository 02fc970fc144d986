/**
 * What the simulated kubelet does when the spec of a pod it runs changes: containers whose image
 * changed are restarted with the new one, and changed resources are allocated when they fit or
 * left pending (kubelet-resize.ts), then actuated after `resizeMs` — PodResizeInProgress until
 * then, and until every container a RestartContainer policy restarted runs again.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import { jsonEqual } from '../schema/store-json.ts';
import { containerBehaviorOf } from './kubelet-image-markers.ts';
import { type ContainerRun, isTerminalPhase, type PodRun } from './kubelet-pod-run.ts';
import {
  admittedResources,
  containersToRestart,
  desiredResources,
  type PodResources,
  type Requests,
  requestsOf,
  resizeMisfit,
  sameAllocation,
} from './kubelet-resize.ts';

/** What a resize is judged against, and how long applying one takes (scaled ms). */
export interface ResizeContext {
  /** The allocated requests of the node's other pods (asked only when a resize is to be judged). */
  readonly used: () => Requests;
  readonly allocatable: Requests;
  readonly resizeMs: number;
  readonly graceMs: number;
}

/** The allocation after the kubelet looked at the desired resources, and the containers to restart. */
function allocate(
  current: Readonly<PodResources>,
  spec: Readonly<V1PodSpec>,
  now: number,
  ctx: Readonly<ResizeContext>,
): { resources: PodResources; restarts: Set<string> } {
  const desired = desiredResources(spec);
  const { pending: _p, ...settled } = current;
  if (jsonEqual(desired, current.allocated) || sameAllocation(desired, current.allocated))
    return { resources: current.pending ? settled : current, restarts: new Set() };
  const misfit = resizeMisfit(requestsOf(desired), ctx.used(), ctx.allocatable);
  if (misfit) {
    const since = current.pending?.reason === misfit.reason ? current.pending.since : now;
    return { resources: { ...current, pending: { ...misfit, since, probedAt: now } }, restarts: new Set() };
  }
  const inProgress = { since: current.inProgress?.since ?? now, doneAt: now + ctx.resizeMs };
  const resources = { allocated: desired, actuated: current.actuated, inProgress };
  return { resources, restarts: containersToRestart(spec, current.allocated, desired) };
}

/**
 * `run` with the containers whose spec image differs, or named in `resized`, being restarted
 * from `now`. A container not running just takes the new image for its next start.
 */
export function restartChangedContainers(
  run: Readonly<PodRun>,
  spec: Readonly<V1PodSpec>,
  now: number,
  graceMs: number,
  resized: ReadonlySet<string> = new Set(),
): PodRun {
  let changed = false;
  const containers = run.containers.map((c): ContainerRun => {
    const image = spec.containers.find((s) => s.name === c.name)?.image ?? c.image;
    const target = c.restart?.image ?? c.image;
    if (image === target && !resized.has(c.name)) return c;
    changed = true;
    if (c.state.kind !== 'running') return { ...c, image, behavior: containerBehaviorOf(image) };
    const since = c.restart?.since ?? now;
    const killAt = c.restart?.killAt ?? now + graceMs;
    return { ...c, restart: { since, killAt, image } };
  });
  return changed ? { ...run, containers } : run;
}

/** `run` brought in line with `spec`: new images restarted, a resize allocated or left pending. */
export function applyPodSpec(
  run: Readonly<PodRun>,
  spec: Readonly<V1PodSpec>,
  now: number,
  ctx: Readonly<ResizeContext>,
): PodRun {
  if (isTerminalPhase(run.phase) || run.stopping || run.rejection) return run;
  const { resources, restarts } = allocate(run.resources ?? admittedResources(spec), spec, now, ctx);
  const restarted = restartChangedContainers(run, spec, now, ctx.graceMs, restarts);
  return { ...restarted, resources };
}

/**
 * `run` with an allocated resize actuated once its time is up and no container is still being
 * restarted or created; `dueAt` is when to look again (undefined: a container transition will).
 */
export function finishResize(run: Readonly<PodRun>, now: number): { run: PodRun; dueAt: number | undefined } {
  const resources = run.resources;
  const inProgress = resources?.inProgress;
  if (!resources || !inProgress) return { run, dueAt: undefined };
  if (inProgress.doneAt > now) return { run, dueAt: inProgress.doneAt };
  const busy = run.containers.some(
    (c) => c.restart || (c.state.kind === 'waiting' && c.state.reason === 'ContainerCreating'),
  );
  if (busy && !isTerminalPhase(run.phase)) return { run, dueAt: undefined };
  const { inProgress: _i, ...rest } = resources;
  return { run: { ...run, resources: { ...rest, actuated: rest.allocated } }, dueAt: undefined };
}
