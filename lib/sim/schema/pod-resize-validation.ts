/**
 * What a pods/resize write may change (pkg/apis/core/validation/validation.go ValidatePodResize,
 * validateContainerResize, resourcesRemoved, dropCPUMemoryResourcesFromContainer, as of
 * kube-apiserver 1.33): the cpu and memory of containers and sidecar (restartable init)
 * containers, without changing the pod's QoS class, removing a request or limit, or lowering or
 * adding a memory limit under a NotRequired memory resizePolicy.
 */
import type { FieldError } from './api-error.ts';
import { forbidden, invalid } from './field-errors.ts';
import { podQosClass } from './pod-qos.ts';
import { validatePodSpec } from './pod-validation.ts';
import { compareQuantities } from './quantity.ts';
import { asRecord, jsonEqual } from './store-json.ts';
import type { KubeObject } from './store-types.ts';

type Json = Record<string, unknown>;

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map((v) => asRecord(v) ?? {}) : [];
}

/** isRestartableInitContainer: a sidecar. */
export function isRestartableInitContainer(container: Readonly<Json>): boolean {
  return container.restartPolicy === 'Always';
}

/** resourcesRemoved: a resource `old` names that `next` does not. */
function resourcesRemoved(next: unknown, old: unknown): boolean {
  const fresh = asRecord(next) ?? {};
  return Object.keys(asRecord(old) ?? {}).some((name) => fresh[name] === undefined);
}

/** validateContainerResize: nothing removed; a NotRequired memory limit only grows. */
function containerResizeErrors(next: Readonly<Json>, old: Readonly<Json>, field: string): FieldError[] {
  const resources = asRecord(next.resources) ?? {};
  const oldResources = asRecord(old.resources) ?? {};
  const errors: FieldError[] = [];
  if (resourcesRemoved(resources.requests, oldResources.requests))
    errors.push(forbidden(`${field}.requests`, 'resource requests cannot be removed'));
  if (resourcesRemoved(resources.limits, oldResources.limits))
    errors.push(forbidden(`${field}.limits`, 'resource limits cannot be removed'));
  const memoryPolicy = listOf(next.resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy;
  if (memoryPolicy !== undefined && memoryPolicy !== '' && memoryPolicy !== 'NotRequired') return errors;
  const limit = asRecord(resources.limits)?.memory;
  const oldLimit = asRecord(oldResources.limits)?.memory;
  if (limit !== undefined && oldLimit !== undefined && compareQuantities(limit, oldLimit) < 0) {
    errors.push(
      forbidden(
        `${field}.limits[memory]`,
        'memory limits cannot be decreased unless resizePolicy is RestartContainer',
      ),
    );
  } else if (limit !== undefined && oldLimit === undefined) {
    errors.push(
      forbidden(
        `${field}.limits[memory]`,
        'memory limits cannot be added unless resizePolicy is RestartContainer',
      ),
    );
  }
  return errors;
}

/** dropCPUMemoryResourcesFromContainer: `next` with the old cpu and memory requests and limits. */
function withOldCpuMemory(next: Readonly<Json>, old: Readonly<Json>): Json {
  const resources = asRecord(next.resources) ?? {};
  const oldResources = asRecord(old.resources) ?? {};
  const munge = (list: unknown, oldList: unknown): Json | undefined => {
    const before = asRecord(oldList);
    if (!before) return undefined;
    const { cpu: _c, memory: _m, ...rest } = asRecord(list) ?? {};
    return {
      ...rest,
      ...(before.cpu !== undefined ? { cpu: before.cpu } : {}),
      ...(before.memory !== undefined ? { memory: before.memory } : {}),
    };
  };
  const limits = munge(resources.limits, oldResources.limits);
  const requests = munge(resources.requests, oldResources.requests);
  return { ...next, resources: { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) } };
}

/** True when two containers differ once the old cpu and memory are put back. */
function changedBeyondCpuMemory(next: Readonly<Json>, old: Readonly<Json>): boolean {
  const munged = withOldCpuMemory(next, old);
  const { resources: _r, ...rest } = old;
  const oldResources = asRecord(old.resources) ?? {};
  const oldOnly = {
    ...rest,
    resources: {
      ...(oldResources.limits ? { limits: oldResources.limits } : {}),
      ...(oldResources.requests ? { requests: oldResources.requests } : {}),
    },
  };
  return !jsonEqual(munged, oldOnly);
}

/** isPodResizeRequestSupported: the node reports container resources (its first running container's). */
function resizeSupported(old: Readonly<KubeObject>): boolean {
  const statuses = listOf(asRecord(old.status)?.containerStatuses);
  const running = statuses.find((s) => asRecord(s.state)?.running !== undefined);
  return running === undefined || running.resources !== undefined;
}

/** Forbidden on the whole pod, answered before anything else (pod-level resources, static, windows). */
function podWideError(next: Readonly<KubeObject>, old: Readonly<KubeObject>): FieldError | undefined {
  const podLevel = (pod: Readonly<KubeObject>) => {
    const r = asRecord(asRecord(pod.spec)?.resources) ?? {};
    return Object.keys(asRecord(r.requests) ?? {}).length + Object.keys(asRecord(r.limits) ?? {}).length > 0;
  };
  if (podLevel(old) || podLevel(next))
    return forbidden('', 'pods with pod-level resources cannot be resized');
  if (old.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined)
    return forbidden('', 'static pods cannot be resized');
  if (asRecord(asRecord(old.spec)?.os)?.name === 'windows')
    return forbidden('', 'windows pods cannot be resized');
  return undefined;
}

/** ValidatePodResize's errors for a resized pod `next` of the stored `old`. */
export function validatePodResize(next: Readonly<KubeObject>, old: Readonly<KubeObject>): FieldError[] {
  const spec = asRecord(next.spec) ?? {};
  const oldSpec = asRecord(old.spec) ?? {};
  const errors = validatePodSpec(spec, 'spec');
  const podWide = podWideError(next, old);
  if (podWide) return [podWide];
  if (podQosClass(oldSpec) !== podQosClass(spec)) {
    const qos = asRecord(next.status)?.qosClass ?? '';
    errors.push(invalid('spec', qos, 'Pod QOS Class may not change as a result of resizing'));
  }
  if (!resizeSupported(old)) errors.push(forbidden('spec', 'Pod running on node without support for resize'));
  const containers = listOf(spec.containers);
  const inits = listOf(spec.initContainers);
  listOf(oldSpec.initContainers).forEach((c, i) => {
    if (isRestartableInitContainer(c))
      errors.push(...containerResizeErrors(inits[i] ?? {}, c, `spec.initContainers[${i}].resources`));
  });
  listOf(oldSpec.containers).forEach((c, i) => {
    errors.push(...containerResizeErrors(containers[i] ?? {}, c, `spec.containers[${i}].resources`));
  });
  listOf(oldSpec.containers).forEach((c, i) => {
    if (changedBeyondCpuMemory(containers[i] ?? {}, c))
      errors.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  listOf(oldSpec.initContainers).forEach((c, i) => {
    const sidecar = isRestartableInitContainer(c);
    const changed = sidecar ? changedBeyondCpuMemory(inits[i] ?? {}, c) : !jsonEqual(inits[i], c);
    if (!changed) return;
    const why = sidecar
      ? 'only cpu and memory resources for sidecar containers are mutable'
      : 'resources for non-sidecar init containers are immutable';
    errors.push(forbidden('spec', why));
  });
  if (errors.length > 0) return errors;
  const { containers: _c, initContainers: _i, ...restNext } = spec;
  const { containers: _oc, initContainers: _oi, ...restOld } = oldSpec;
  if (
    containers.length !== listOf(oldSpec.containers).length ||
    inits.length !== listOf(oldSpec.initContainers).length ||
    !jsonEqual(restNext, restOld)
  )
    errors.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  return errors;
}
