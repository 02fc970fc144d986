/**
 * The scheduler cache's per-node sums (upstream NodeInfo.Requested and len(NodeInfo.Pods)): what
 * the pods bound to each node request and how many they are, kept up to date from pod events so a
 * decision reads them in O(1) among 20,000 nodes. A pod counts from the moment it has a node
 * until it is gone or has ended: the scheduler's pod informer leaves out Succeeded and Failed pods
 * (`status.phase!=Succeeded,status.phase!=Failed`), and a terminating pod still counts. A bound
 * pod counts with its status resources as well (PodRequests with UseStatusResources, as the
 * scheduler does under InPlacePodVerticalScaling), so a resize in flight holds the larger size.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import {
  addAmounts,
  NO_RESOURCES,
  type PodRequestsInput,
  podRequests,
  type ResourceAmounts,
  subtractAmounts,
} from '../pod-requests.ts';
import type { KubeObject } from '../storage/store.ts';
import type { NodeRequested } from './node-fit.ts';

/** One pod counted on a node: what it requests and its priority (preemption looks at both). */
export interface CountedPod {
  readonly node: string;
  readonly requests: ResourceAmounts;
  readonly priority: number;
}

interface NodeSums {
  requested: ResourceAmounts;
  readonly pods: Map<string, CountedPod>;
}

const NOTHING: NodeRequested = Object.freeze({ cpu: 0, memory: 0, ephemeralStorage: 0, pods: 0 });

/** Per-node requested resources and pod counts, by pod key (`ns/name`). */
export class NodeUsage {
  private readonly byPod = new Map<string, CountedPod>();
  private readonly byNode = new Map<string, NodeSums>();

  /**
   * Takes a pod's change (`pod` undefined: deleted) and returns the node where it freed room —
   * the pod left it, ended, or requests less — or undefined.
   */
  update(key: string, pod: Readonly<KubeObject> | undefined): string | undefined {
    const before = this.byPod.get(key);
    const after = pod ? countedPod(pod) : undefined;
    if (before && after && before.node === after.node && sameAmounts(before.requests, after.requests)) {
      if (before.priority !== after.priority) this.put(key, after);
      return undefined;
    }
    if (before) this.remove(key, before);
    if (after) this.put(key, after);
    if (!before) return undefined;
    if (!after || after.node !== before.node || freesRoom(before.requests, after.requests))
      return before.node;
    return undefined;
  }

  /** What the pods counted on `node` request, and how many they are. */
  requested(node: string): NodeRequested {
    const sums = this.byNode.get(node);
    return sums ? { ...sums.requested, pods: sums.pods.size } : NOTHING;
  }

  /** The pods counted on `node`. */
  podsOn(node: string): Iterable<CountedPod> {
    return this.byNode.get(node)?.pods.values() ?? [];
  }

  private put(key: string, pod: CountedPod): void {
    this.byPod.set(key, pod);
    let sums = this.byNode.get(pod.node);
    if (!sums) {
      sums = { requested: { cpu: 0, memory: 0, ephemeralStorage: 0 }, pods: new Map() };
      this.byNode.set(pod.node, sums);
    }
    const old = sums.pods.get(key);
    if (old) sums.requested = subtractAmounts(sums.requested, old.requests);
    sums.pods.set(key, pod);
    sums.requested = addAmounts(sums.requested, pod.requests);
  }

  private remove(key: string, pod: CountedPod): void {
    this.byPod.delete(key);
    const sums = this.byNode.get(pod.node);
    if (!sums) return;
    sums.pods.delete(key);
    sums.requested = subtractAmounts(sums.requested, pod.requests);
    if (sums.pods.size === 0) this.byNode.delete(pod.node);
  }
}

/** The pod as the scheduler cache counts it, or undefined when it does not count (unbound or ended). */
function countedPod(pod: Readonly<KubeObject>): CountedPod | undefined {
  const spec = pod.spec as V1PodSpec | undefined;
  const node = spec?.nodeName;
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (!node || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const requests = podRequests(pod as PodRequestsInput, true);
  // Most pods of a large cluster request alike: share the empty amounts rather than hold a copy each.
  return { node, requests: isNothing(requests) ? NO_RESOURCES : requests, priority: podPriority(spec) };
}

/** corev1helpers.PodPriority: `spec.priority`, 0 when unset. */
export function podPriority(spec: Readonly<Pick<V1PodSpec, 'priority'>> | undefined): number {
  return spec?.priority ?? 0;
}

function isNothing(a: Readonly<ResourceAmounts>): boolean {
  return a.cpu === 0 && a.memory === 0 && a.ephemeralStorage === 0;
}

function sameAmounts(a: Readonly<ResourceAmounts>, b: Readonly<ResourceAmounts>): boolean {
  return a.cpu === b.cpu && a.memory === b.memory && a.ephemeralStorage === b.ephemeralStorage;
}

function freesRoom(before: Readonly<ResourceAmounts>, after: Readonly<ResourceAmounts>): boolean {
  return (
    after.cpu < before.cpu || after.memory < before.memory || after.ephemeralStorage < before.ephemeralStorage
  );
}
