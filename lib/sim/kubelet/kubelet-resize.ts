/**
 * How the simulated kubelet takes an in-place resize, as pure data (kube 1.33: pkg/kubelet
 * kubelet.go handlePodResourcesResize and canResizePod, the status manager's PodResizePending and
 * PodResizeInProgress conditions). The pod's spec resources are what is desired; the kubelet
 * allocates them when they fit — else the resize is pending, `Infeasible` when the pod's requests
 * exceed the node's allocatable, `Deferred` when they exceed what the node's other pods leave of
 * it — then actuates the allocation (PodResizeInProgress meanwhile), restarting the containers
 * whose resizePolicy says RestartContainer for a resource that changed.
 */
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { amountsOf, nodeAllocatable } from '../pod-requests.ts';
import { milliValue, wholeValue } from '../schema/quantity.ts';

/** A container's requests and limits, as the pod spec words them. */
export interface ContainerResources {
  readonly requests?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
}

/** Why a resize waits: PodResizePending's reason and message, and when the kubelet last tried it. */
export interface PendingResize {
  readonly reason: 'Infeasible' | 'Deferred';
  readonly message: string;
  readonly since: number;
  readonly probedAt: number;
}

/** The kubelet's resource state of one pod, per container name. */
export interface PodResources {
  readonly allocated: Readonly<Record<string, ContainerResources>>;
  readonly actuated: Readonly<Record<string, ContainerResources>>;
  readonly pending?: PendingResize;
  /** Set while an allocated resize is being applied (PodResizeInProgress), until `doneAt`. */
  readonly inProgress?: { readonly since: number; readonly doneAt: number };
}

/** A pod's cpu (millicores) and memory (bytes) requests. */
export interface Requests {
  readonly cpu: number;
  readonly memory: number;
}

/** The desired resources of each container of `spec` (app containers: what resize touches here). */
export function desiredResources(spec: Readonly<V1PodSpec>): Record<string, ContainerResources> {
  const out: Record<string, ContainerResources> = {};
  for (const c of spec.containers) out[c.name] = (c.resources ?? {}) as ContainerResources;
  return out;
}

/** The resources a pod is admitted with: allocated and actuated as its spec says. */
export function admittedResources(spec: Readonly<V1PodSpec>): PodResources {
  const desired = desiredResources(spec);
  return { allocated: desired, actuated: desired };
}

/** The summed cpu and memory requests of `resources` (resource.GetResourceRequest over app containers). */
export function requestsOf(resources: Readonly<Record<string, ContainerResources>>): Requests {
  let cpu = 0;
  let memory = 0;
  for (const r of Object.values(resources)) {
    const requests = amountsOf(r.requests);
    cpu += requests.cpu;
    memory += requests.memory;
  }
  return { cpu, memory };
}

/** The node's allocatable cpu (millicores) and memory (bytes), as the scheduler reads them too. */
export function allocatableOf(node: Readonly<V1Node>): Requests {
  const { cpu, memory } = nodeAllocatable(node);
  return { cpu, memory };
}

/**
 * canResizePod: undefined when `wanted` fits, else why not — Infeasible beyond allocatable
 * (memory named first), Deferred beyond what `used` (the other pods' allocated requests) leaves,
 * worded as the kubelet's admission (InsufficientResourceError, cpu checked first).
 */
export function resizeMisfit(
  wanted: Readonly<Requests>,
  used: Readonly<Requests>,
  allocatable: Readonly<Requests>,
): { reason: 'Infeasible' | 'Deferred'; message: string } | undefined {
  if (wanted.cpu > allocatable.cpu || wanted.memory > allocatable.memory) {
    const detail =
      wanted.memory > allocatable.memory
        ? `memory, requested: ${wanted.memory}, capacity: ${allocatable.memory}`
        : `cpu, requested: ${wanted.cpu}, capacity: ${allocatable.cpu}`;
    return { reason: 'Infeasible', message: `Node didn't have enough capacity: ${detail}` };
  }
  for (const name of ['cpu', 'memory'] as const) {
    if (wanted[name] > allocatable[name] - used[name]) {
      const message = `Node didn't have enough resource: ${name}, requested: ${wanted[name]}, used: ${used[name]}, capacity: ${allocatable[name]}`;
      return { reason: 'Deferred', message };
    }
  }
  return undefined;
}

function sameQuantity(a: string | undefined, b: string | undefined, name: string): boolean {
  if (a === undefined || b === undefined) return a === b;
  return name === 'cpu' ? milliValue(a) === milliValue(b) : wholeValue(a) === wholeValue(b);
}

/** The resources (`cpu`, `memory`) whose request or limit differs between two allocations. */
export function changedResources(a: Readonly<ContainerResources>, b: Readonly<ContainerResources>): string[] {
  return ['cpu', 'memory'].filter(
    (name) =>
      !sameQuantity(a.requests?.[name], b.requests?.[name], name) ||
      !sameQuantity(a.limits?.[name], b.limits?.[name], name),
  );
}

/** True when two per-container allocations are the same. */
export function sameAllocation(
  a: Readonly<Record<string, ContainerResources>>,
  b: Readonly<Record<string, ContainerResources>>,
): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].every((n) => changedResources(a[n] ?? {}, b[n] ?? {}).length === 0);
}

/** The containers a resize from `before` to `after` restarts: a changed resource whose policy is RestartContainer. */
export function containersToRestart(
  spec: Readonly<V1PodSpec>,
  before: Readonly<Record<string, ContainerResources>>,
  after: Readonly<Record<string, ContainerResources>>,
): Set<string> {
  const out = new Set<string>();
  for (const c of spec.containers) {
    const changed = changedResources(before[c.name] ?? {}, after[c.name] ?? {});
    const restart = (c.resizePolicy ?? []).some(
      (p) => p.restartPolicy === 'RestartContainer' && changed.includes(p.resourceName),
    );
    if (restart) out.add(c.name);
  }
  return out;
}
