/**
 * Whether a change of container resources between two revisions' templates can go through
 * pods/resize: what kube-apiserver 1.33's ValidatePodResize (pkg/apis/core/validation) would refuse,
 * judged on the templates. Only the cpu and memory of regular containers change; no request or
 * limit goes away; a memory limit is neither lowered nor added unless the container's memory
 * resizePolicy is RestartContainer; the QoS class stays (ComputePodQOS); no pod-level resources; not
 * a Windows pod. OpenKruise's vertical in-place update makes the same QoS check.
 */
import type { JsonValue } from '../template-hash.ts';
import { type JsonObject, objectList, sameJson, semanticObject } from './template-json.ts';

/** The resources pods/resize may change. */
export const RESIZABLE_RESOURCES: readonly string[] = ['cpu', 'memory'];

const SUFFIXES = new Map<string, number>([
  ['n', 1e-9],
  ['u', 1e-6],
  ['m', 1e-3],
  ['', 1],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['E', 1e18],
  ...['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'].map((s, i): [string, number] => [s, 2 ** (10 * (i + 1))]),
]);

/** The amount a resource quantity stands for (`500m` → 0.5, `1Gi` → 2³⁰); NaN when it is not one. */
export function quantityValue(quantity: JsonValue | undefined): number {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return Number.NaN;
  const parts = /^([+-]?[\d.]+)([eE][+-]?\d+|[a-zA-Z]*)$/.exec(quantity.trim());
  if (!parts?.[1]) return Number.NaN;
  const [, number, suffix = ''] = parts;
  if (/^[eE]/.test(suffix)) return Number(`${number}${suffix}`);
  const factor = SUFFIXES.get(suffix);
  return factor === undefined ? Number.NaN : Number(number) * factor;
}

/** True when two quantities are equal (`1` and `1000m`); unreadable ones compare as text. */
export function sameQuantity(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const [x, y] = [quantityValue(a), quantityValue(b)];
  return Number.isNaN(x) || Number.isNaN(y) ? sameJson(a ?? null, b ?? null) : x === y;
}

/** The requests and limits of a container's resources, requests defaulted from limits (SetDefaults_Pod). */
function requestsAndLimits(resources: JsonValue | undefined): { requests: JsonObject; limits: JsonObject } {
  const r = semanticObject(resources);
  const limits = semanticObject(r.limits);
  return { limits, requests: { ...limits, ...semanticObject(r.requests) } };
}

/** True when two `resources` of a container mean the same: quantities by value, the rest as JSON. */
export function sameResources(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const [x, y] = [requestsAndLimits(a), requestsAndLimits(b)];
  const sameList = (p: JsonObject, q: JsonObject) =>
    [...new Set([...Object.keys(p), ...Object.keys(q)])].every((name) => sameQuantity(p[name], q[name]));
  const { requests: _r, limits: _l, ...xRest } = semanticObject(a);
  const { requests: _s, limits: _m, ...yRest } = semanticObject(b);
  return sameList(x.requests, y.requests) && sameList(x.limits, y.limits) && sameJson(xRest, yRest);
}

/** ComputePodQOS over regular and init containers: only cpu and memory count. */
function qosClassOf(spec: Readonly<JsonObject>): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...objectList(spec.containers), ...objectList(spec.initContainers)];
  const total = { requests: new Map<string, number>(), limits: new Map<string, number>() };
  let everyLimited = true;
  for (const container of containers) {
    const lists = requestsAndLimits(container.resources);
    for (const kind of ['requests', 'limits'] as const)
      for (const name of RESIZABLE_RESOURCES) {
        const value = quantityValue(lists[kind][name]);
        if (value > 0) total[kind].set(name, (total[kind].get(name) ?? 0) + value);
      }
    if (!RESIZABLE_RESOURCES.every((name) => quantityValue(lists.limits[name]) > 0)) everyLimited = false;
  }
  if (total.requests.size === 0 && total.limits.size === 0) return 'BestEffort';
  const equal = RESIZABLE_RESOURCES.every((name) => total.requests.get(name) === total.limits.get(name));
  return everyLimited && equal ? 'Guaranteed' : 'Burstable';
}

/** Why one container's resources cannot move from `old` to `next` by a resize; undefined when they can. */
function containerRefusal(old: Readonly<JsonObject>, next: Readonly<JsonObject>): string | undefined {
  const [before, after] = [requestsAndLimits(old.resources), requestsAndLimits(next.resources)];
  const { requests: _r, limits: _l, ...rest } = semanticObject(next.resources);
  const { requests: _s, limits: _m, ...oldRest } = semanticObject(old.resources);
  for (const kind of ['limits', 'requests'] as const) {
    const names = new Set([...Object.keys(before[kind]), ...Object.keys(after[kind])]);
    for (const name of names) {
      if (RESIZABLE_RESOURCES.includes(name) || sameQuantity(before[kind][name], after[kind][name])) continue;
      return `only cpu and memory can be resized (${kind}.${name} changed)`;
    }
    if (Object.keys(before[kind]).some((name) => after[kind][name] === undefined))
      return `resource ${kind} cannot be removed`;
  }
  if (!sameJson(rest, oldRest)) return 'only cpu and memory can be resized';
  const memoryPolicy = objectList(next.resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy;
  if (memoryPolicy !== undefined && memoryPolicy !== 'NotRequired') return undefined;
  const [limit, oldLimit] = [after.limits.memory, before.limits.memory];
  if (limit !== undefined && oldLimit === undefined)
    return 'a memory limit cannot be added unless its resizePolicy is RestartContainer';
  if (limit !== undefined && quantityValue(limit) < quantityValue(oldLimit))
    return 'a memory limit cannot be lowered unless its resizePolicy is RestartContainer';
  return undefined;
}

/**
 * Why pods/resize would refuse to take the pod spec `old` to `next`, which differ in the
 * `resources` of the containers named `changed` only; undefined when it would take it.
 */
export function resizeRefusal(
  old: Readonly<JsonObject>,
  next: Readonly<JsonObject>,
  changed: readonly string[],
): string | undefined {
  if (Object.keys(semanticObject(next.resources)).length > 0)
    return 'pods with pod-level resources cannot be resized';
  if (semanticObject(next.os).name === 'windows') return 'windows pods cannot be resized';
  const byName = (spec: Readonly<JsonObject>, name: string) =>
    objectList(spec.containers).find((c) => c.name === name) ?? {};
  for (const name of changed) {
    const why = containerRefusal(byName(old, name), byName(next, name));
    if (why !== undefined) return `spec.containers[${name}]: ${why}`;
  }
  if (qosClassOf(old) !== qosClassOf(next))
    return `the QoS class would change (${qosClassOf(old)} to ${qosClassOf(next)})`;
  return undefined;
}
