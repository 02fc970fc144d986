/**
 * Whether a daemon pod has the size its node calls for (docs/design.md, per-node sizing): the
 * second half of "current", beside the revision (pod-revision.ts `isPodCurrent`). A pod is sized
 * right when, for every container the DaemonSet's rules name, each cpu and memory request and
 * limit the template sized for the node names (`sizedPodSpec`) has the same value in the pod (a
 * request the pod leaves out being its limit, as the API server defaults it). Values the sized
 * template does not name are not compared: an admission plugin (LimitRanger) may add them, and
 * comparing them would call every such pod wrong for ever.
 *
 * Pure and free: the node object is all it reads, so the DaemonSet step judges every pod from the
 * node and pod LISTs it already made, and the pair step from the node it already read.
 */
import type { V1Container, V1Node, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import { nodeSizingOf } from './node-sizing.ts';
import { compareQuantities, parseQuantity } from './quantity.ts';
import { sizedPodSpec } from './sized-resources.ts';
import { SIZED_RESOURCES, type SizingRule } from './sizing-rule.ts';

/** The cpu and memory values a container's resources name, requests defaulted from limits. */
export interface SizeValues {
  readonly requests: Readonly<Record<string, string>>;
  readonly limits: Readonly<Record<string, string>>;
}

/** The cpu and memory `container` names: its limits, and its requests defaulted from them. */
export function sizeValuesOf(container: Readonly<V1Container> | undefined): SizeValues {
  const pick = (map: Readonly<Record<string, string>> | undefined) =>
    Object.fromEntries(
      SIZED_RESOURCES.flatMap((r) => (map?.[r] === undefined ? [] : [[r, String(map[r])]])),
    ) as Record<string, string>;
  const limits = pick(container?.resources?.limits);
  return { limits, requests: { ...limits, ...pick(container?.resources?.requests) } };
}

/** True when two quantities are equal by exact value (unreadable ones: as text). */
function sameAmount(a: string | undefined, b: string | undefined): boolean {
  const [x, y] = [parseQuantity(a), parseQuantity(b)];
  return x === undefined || y === undefined ? a === b : compareQuantities(x, y) === 0;
}

/** True when `have` holds every value `wanted` names, by value. */
export function holdsSize(have: Readonly<SizeValues>, wanted: Readonly<SizeValues>): boolean {
  return (['requests', 'limits'] as const).every((kind) =>
    Object.entries(wanted[kind]).every(([resource, value]) => sameAmount(have[kind][resource], value)),
  );
}

/** The containers `rules` name, in rule order, each once. */
export function sizedContainerNames(rules: readonly SizingRule[]): string[] {
  return [...new Set(rules.map((rule) => rule.container))];
}

/** Per node object, per DaemonSet object: the sized values of each container the rules name. */
const wantedByNode = new WeakMap<object, WeakMap<object, Map<string, SizeValues>>>();

/** What `spec` sized by `rules` on `node` gives each container the rules name. */
export function wantedSizes(
  spec: Readonly<V1PodSpec>,
  rules: readonly SizingRule[],
  node: Readonly<V1Node>,
): Map<string, SizeValues> {
  const sized = sizedPodSpec(spec, rules, node);
  const names = sizedContainerNames(rules);
  return new Map(
    sized.containers.filter((c) => names.includes(c.name)).map((c) => [c.name, sizeValuesOf(c)]),
  );
}

function wantedFor(ds: Readonly<DaemonSet>, node: Readonly<V1Node>): Map<string, SizeValues> {
  let byDs = wantedByNode.get(node);
  if (byDs === undefined) {
    byDs = new WeakMap();
    wantedByNode.set(node, byDs);
  }
  let wanted = byDs.get(ds);
  if (wanted === undefined) {
    const spec = ds.spec?.template?.spec;
    wanted = spec === undefined ? new Map() : wantedSizes(spec, nodeSizingOf(ds), node);
    byDs.set(ds, wanted);
  }
  return wanted;
}

/**
 * The containers of `pod` whose size is not the one `ds`'s template and rules give on `node`
 * (empty when every one is right, the DaemonSet has no rules, or the node is unknown: a pod on a
 * vanished node is judged by its revision alone). A container the pod lacks is not listed: no
 * resize can give it a size, and its revision already says the pod is not the template's.
 */
export function wronglySizedContainers(
  pod: Readonly<V1Pod>,
  ds: Readonly<DaemonSet>,
  node: Readonly<V1Node> | undefined,
): string[] {
  if (node === undefined || nodeSizingOf(ds).length === 0) return [];
  const wrong: string[] = [];
  for (const [name, wanted] of wantedFor(ds, node)) {
    const container = pod.spec?.containers?.find((c) => c.name === name);
    if (container !== undefined && !holdsSize(sizeValuesOf(container), wanted)) wrong.push(name);
  }
  return wrong;
}

/** True when `pod` has the size `ds`'s rules give on `node` (see {@link wronglySizedContainers}). */
export function hasNodeSize(
  pod: Readonly<V1Pod>,
  ds: Readonly<DaemonSet>,
  node: Readonly<V1Node> | undefined,
): boolean {
  return wronglySizedContainers(pod, ds, node).length === 0;
}
