/**
 * The resource arithmetic the scheduler and the kubelets of the simulated cluster share: what a
 * pod requests (k8s.io/component-helpers/resource PodRequests) and what a node offers
 * (`status.allocatable`), as integers — cpu in millicores, memory and ephemeral storage in bytes.
 */
import type { V1Container, V1Node, V1PodSpec } from '@kubernetes/client-node';
import { milliValue, wholeValue } from './schema/quantity.ts';

/** Amounts of the resources the simulated cluster accounts for. */
export interface ResourceAmounts {
  /** Millicores. */
  readonly cpu: number;
  /** Bytes. */
  readonly memory: number;
  /** Bytes. */
  readonly ephemeralStorage: number;
}

/** What a node offers pods: its allocatable resources and how many pods it takes. */
export interface NodeAllocatable extends ResourceAmounts {
  readonly pods: number;
}

type ResourceList = Readonly<Record<string, string>> | undefined;

/** Nothing requested. */
export const NO_RESOURCES: ResourceAmounts = Object.freeze({ cpu: 0, memory: 0, ephemeralStorage: 0 });

/** A resource list (`requests`, `limits`, `overhead`, `allocatable`) as amounts. */
export function amountsOf(list: ResourceList): ResourceAmounts {
  if (!list) return NO_RESOURCES;
  return {
    cpu: milliValue(list.cpu),
    memory: wholeValue(list.memory),
    ephemeralStorage: wholeValue(list['ephemeral-storage']),
  };
}

export function addAmounts(a: Readonly<ResourceAmounts>, b: Readonly<ResourceAmounts>): ResourceAmounts {
  return {
    cpu: a.cpu + b.cpu,
    memory: a.memory + b.memory,
    ephemeralStorage: a.ephemeralStorage + b.ephemeralStorage,
  };
}

export function subtractAmounts(a: Readonly<ResourceAmounts>, b: Readonly<ResourceAmounts>): ResourceAmounts {
  return {
    cpu: a.cpu - b.cpu,
    memory: a.memory - b.memory,
    ephemeralStorage: a.ephemeralStorage - b.ephemeralStorage,
  };
}

function maxAmounts(a: Readonly<ResourceAmounts>, b: Readonly<ResourceAmounts>): ResourceAmounts {
  return {
    cpu: Math.max(a.cpu, b.cpu),
    memory: Math.max(a.memory, b.memory),
    ephemeralStorage: Math.max(a.ephemeralStorage, b.ephemeralStorage),
  };
}

/** The node's `status.allocatable` as amounts; a node that reports none offers nothing (0 pods). */
export function nodeAllocatable(node: Readonly<V1Node>): NodeAllocatable {
  const allocatable = node.status?.allocatable;
  return { ...amountsOf(allocatable), pods: wholeValue(allocatable?.pods) };
}

/** A container's status as far as resources go (pods' JSON as the store holds them). */
interface ContainerStatusResources {
  readonly name?: string;
  readonly resources?: { readonly requests?: Record<string, string> };
  readonly allocatedResources?: Record<string, string>;
}

/** The parts of a pod PodRequests reads. */
export interface PodRequestsInput {
  readonly spec?: Readonly<Partial<Pick<V1PodSpec, 'containers' | 'initContainers' | 'overhead'>>>;
  readonly status?: {
    readonly containerStatuses?: readonly ContainerStatusResources[];
    readonly conditions?: readonly { readonly type?: string; readonly reason?: string }[];
  };
}

/**
 * PodRequests: the sum of the app containers' requests, raised to what any init container needs
 * while it runs (its own requests plus the sidecars — restartable init containers — started before
 * it; sidecars also add to the sum), plus `spec.overhead`. With `useStatusResources` (a bound pod
 * under InPlacePodVerticalScaling, as the scheduler's NodeInfo counts it) an app container counts
 * the most of its spec requests, its status `resources.requests` and `allocatedResources` — only the
 * latter two while its resize is Infeasible.
 */
export function podRequests(pod: Readonly<PodRequestsInput>, useStatusResources = false): ResourceAmounts {
  const spec = pod.spec;
  const statuses = useStatusResources ? statusByName(pod) : undefined;
  const infeasible = statuses ? resizeInfeasible(pod) : false;
  let sum = NO_RESOURCES;
  for (const c of spec?.containers ?? []) {
    const status = statuses?.get(c.name);
    sum = addAmounts(sum, status?.resources ? statusAwareRequests(c, status, infeasible) : requestsOf(c));
  }
  let sidecars = NO_RESOURCES;
  let init = NO_RESOURCES;
  for (const c of spec?.initContainers ?? []) {
    const own = requestsOf(c);
    if (c.restartPolicy === 'Always') {
      sum = addAmounts(sum, own);
      sidecars = addAmounts(sidecars, own);
      init = maxAmounts(init, sidecars);
    } else init = maxAmounts(init, addAmounts(own, sidecars));
  }
  const requests = maxAmounts(sum, init);
  return spec?.overhead ? addAmounts(requests, amountsOf(spec.overhead as ResourceList)) : requests;
}

function requestsOf(container: Readonly<Pick<V1Container, 'resources'>>): ResourceAmounts {
  return amountsOf(container.resources?.requests as ResourceList);
}

function statusByName(pod: Readonly<PodRequestsInput>): Map<string, ContainerStatusResources> {
  return new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name ?? '', s]));
}

function resizeInfeasible(pod: Readonly<PodRequestsInput>): boolean {
  const pending = pod.status?.conditions?.find((c) => c.type === 'PodResizePending');
  return pending?.reason === 'Infeasible';
}

/** determineContainerReqs: max(spec, status, allocated), or max(status, allocated) when Infeasible. */
function statusAwareRequests(
  container: Readonly<V1Container>,
  status: ContainerStatusResources,
  infeasible: boolean,
): ResourceAmounts {
  const reported = maxAmounts(amountsOf(status.resources?.requests), amountsOf(status.allocatedResources));
  return infeasible ? reported : maxAmounts(requestsOf(container), reported);
}
