/**
 * A pod's QoS class (pkg/apis/core/helper/qos ComputePodQOS) and the defaulting of container
 * requests from limits (pkg/apis/core/v1/defaults.go SetDefaults_Pod), over pods as stored JSON.
 */
import { compareQuantities, parseQuantity } from './quantity.ts';
import { asRecord } from './store-json.ts';

type Json = Record<string, unknown>;

/** The QoS resources: only cpu and memory decide the class (isSupportedQoSComputeResource). */
const qosResources = ['cpu', 'memory'];

function containersOf(spec: Readonly<Json>): Json[] {
  const all = [spec.containers, spec.initContainers].flatMap((list) => (Array.isArray(list) ? list : []));
  return all.map((c) => asRecord(c) ?? {});
}

/** Adds `list`'s positive cpu and memory quantities into `sums`; returns the names it found. */
function addPositive(sums: Map<string, number>, list: unknown): Set<string> {
  const found = new Set<string>();
  for (const [name, quantity] of Object.entries(asRecord(list) ?? {})) {
    const value = parseQuantity(quantity) ?? 0;
    if (!qosResources.includes(name) || value <= 0) continue;
    found.add(name);
    sums.set(name, (sums.get(name) ?? 0) + value);
  }
  return found;
}

/**
 * `Guaranteed` when every container limits cpu and memory and the summed requests equal the summed
 * limits, `BestEffort` when none requests or limits either, else `Burstable`.
 */
export function podQosClass(spec: Readonly<Json>): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const container of containersOf(spec)) {
    const resources = asRecord(container.resources) ?? {};
    addPositive(requests, resources.requests);
    const limited = addPositive(limits, resources.limits);
    if (!qosResources.every((name) => limited.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  for (const [name, request] of requests) {
    if (compareQuantities(limits.get(name), request) !== 0 || !limits.has(name)) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** SetDefaults_Pod: a container's request of a resource it limits but does not request is the limit. */
export function defaultRequestsFromLimits(spec: Json): void {
  for (const container of containersOf(spec)) {
    const resources = asRecord(container.resources);
    const limits = asRecord(resources?.limits);
    if (!resources || !limits || Object.keys(limits).length === 0) continue;
    const requests = { ...asRecord(resources.requests) };
    for (const [name, limit] of Object.entries(limits))
      if (requests[name] === undefined) requests[name] = limit;
    resources.requests = requests;
  }
}
