/**
 * The kubelet restarting one container of a running pod, as pure data: when the container's
 * image changed in the pod spec (kuberuntime computePodActions: "Container X definition changed,
 * will be restarted") or a resize of a resource whose resizePolicy is RestartContainer. SIGTERM
 * goes to the old container, which exits `stopMs` later (at the pod's grace period at the latest,
 * or at it for `ignore-sigterm` images); then the container is created again from the new image,
 * with a new container ID and `restartCount` + 1, and starts and becomes ready on the usual delays.
 */
import { type ContainerBehavior, containerBehaviorOf } from './kubelet-image-markers.ts';

/** A restart under way: SIGTERM sent at `since`, SIGKILL at `killAt`, then `image` is started. */
export interface ContainerRestart {
  readonly since: number;
  readonly killAt: number;
  readonly image: string;
}

/** What of a container run a restart reads (kubelet-pod-run.ts ContainerRun has it all). */
interface Restartable {
  readonly image: string;
  readonly behavior: ContainerBehavior;
  readonly restartCount: number;
  readonly restart?: ContainerRestart;
  readonly state:
    | { readonly kind: 'running'; readonly startedAt: number }
    | { readonly kind: 'waiting' | 'terminated' };
}

/** When a container being restarted exits (undefined: it is not being restarted). */
export function restartExitTime(
  c: Readonly<Restartable>,
  delays: { readonly stopMs: number },
): number | undefined {
  const r = c.restart;
  if (!r || c.state.kind !== 'running') return undefined;
  if (c.behavior === 'ignore-sigterm') return r.killAt;
  return Math.min(r.since + delays.stopMs, r.killAt);
}

/** The container once its old process exited at `at`: created again from the new image. */
export function restartedContainer<C extends Restartable>(
  c: Readonly<C>,
  at: number,
  delays: { readonly stopMs: number },
): C {
  const r = c.restart;
  if (!r || c.state.kind !== 'running') return c as C;
  const heeded = c.behavior !== 'ignore-sigterm' && r.since + delays.stopMs <= r.killAt;
  const lastTermination = {
    exitCode: heeded ? 143 : 137,
    reason: 'Error' as const,
    startedAt: c.state.startedAt,
    finishedAt: at,
  };
  const { restart: _r, ...rest } = c;
  return {
    ...(rest as unknown as C),
    image: r.image,
    behavior: containerBehaviorOf(r.image),
    restartCount: c.restartCount + 1,
    lastTermination,
    state: { kind: 'waiting', reason: 'ContainerCreating', since: at },
  } as C;
}
