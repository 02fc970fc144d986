/**
 * The node gate property's DaemonSets and its model of the right gate state of a settled cluster,
 * written independently of lib/core (docs/design.md, 26. Node readiness gates):
 *
 * - `agent` (every node) and `ssd-agent` (nodes labelled disk=ssd) gate the default key,
 *   Continuous: a node carries the taint exactly when one of them should run there and has no
 *   available pod there.
 * - `boot` (every node) gates its own key, BootstrapOnly: a node keeps that taint only while the
 *   boot pod that should run there is not available; once lifted it carries the released marker and
 *   never the taint again; a node that never had the taint never gets it.
 * - A taint of another controller, once on a node, stays through every write.
 */
import type { V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject, StoreEvent } from '../../lib/sim/storage/store.ts';
import { DAEMONSETS_READY, droppedTaints, type GateTimeline } from './gate-timeline.ts';

/** The Continuous gate key of `agent` and `ssd-agent`. */
export const CONTINUOUS_KEY = 'everynode.dev/not-ready';
/** The BootstrapOnly gate key of `boot`. */
export const BOOTSTRAP_KEY = 'example.com/boot-not-ready';
/** The prefix of the taints another controller adds. */
export const OTHER_TAINT = 'example.com/other';

/** One gating DaemonSet of the property. */
export interface GatingSpec {
  readonly name: string;
  readonly key: string;
  readonly mode: 'Continuous' | 'BootstrapOnly';
  readonly ssdOnly: boolean;
}

/** The property's gating DaemonSets. */
export const GATING: readonly GatingSpec[] = [
  { name: 'agent', key: CONTINUOUS_KEY, mode: 'Continuous', ssdOnly: false },
  { name: 'ssd-agent', key: CONTINUOUS_KEY, mode: 'Continuous', ssdOnly: true },
  { name: 'boot', key: BOOTSTRAP_KEY, mode: 'BootstrapOnly', ssdOnly: false },
];

/** The everynode.dev/v1 DaemonSet of `spec`, in `default`, its pods running `image`. */
export function gatingDaemonSet(spec: Readonly<GatingSpec>, image = 'busybox:1.36'): KubeObject {
  return {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name: spec.name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: spec.name } },
      nodeReadiness: { mode: spec.mode, taintKey: spec.key },
      template: {
        metadata: { labels: { app: spec.name } },
        spec: {
          ...(spec.ssdOnly ? { nodeSelector: { disk: 'ssd' } } : {}),
          terminationGracePeriodSeconds: 1,
          containers: [{ name: spec.name, image }],
        },
      },
    },
  };
}

const GATE_KEYS = new Set(GATING.map((g) => g.key));

/** Taints every daemon pod tolerates (upstream's automatic daemon pod tolerations). */
function toleratedByDaemonPods(taint: Readonly<V1Taint>): boolean {
  if (taint.effect === 'NoExecute')
    return taint.key === 'node.kubernetes.io/not-ready' || taint.key === 'node.kubernetes.io/unreachable';
  return [
    'node.kubernetes.io/disk-pressure',
    'node.kubernetes.io/memory-pressure',
    'node.kubernetes.io/pid-pressure',
    'node.kubernetes.io/unschedulable',
  ].includes(taint.key);
}

/** True when `spec`'s DaemonSet should run a pod on `node`, every gate taint tolerated. */
export function shouldRun(spec: Readonly<GatingSpec>, node: Readonly<V1Node>): boolean {
  if (spec.ssdOnly && node.metadata?.labels?.disk !== 'ssd') return false;
  return !(node.spec?.taints ?? []).some(
    (t) =>
      (t.effect === 'NoSchedule' || t.effect === 'NoExecute') &&
      !(t.effect === 'NoSchedule' && GATE_KEYS.has(t.key)) &&
      !toleratedByDaemonPods(t),
  );
}

/** True when the pod is available: Running, Ready, not being deleted (minReadySeconds 0). */
export function isAvailable(pod: Readonly<V1Pod>): boolean {
  return (
    pod.metadata?.deletionTimestamp === undefined &&
    pod.status?.phase === 'Running' &&
    pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
  );
}

/** The pods of the gating DaemonSet `name` on `node`. */
export function gatingPods(sim: SimCluster, name: string, node: string): V1Pod[] {
  return (sim.store.list('pods', { namespace: 'default' }) as unknown as V1Pod[]).filter(
    (pod) =>
      pod.metadata?.labels?.app === name &&
      (pod.spec?.nodeName ?? pinnedNode(pod)) === node &&
      pod.metadata?.ownerReferences?.some((r) => r.controller && r.name === name),
  );
}

function pinnedNode(pod: Readonly<V1Pod>): string | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return terms?.nodeSelectorTerms[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}

/** The gating DaemonSets of `key` that should run on `node` and have no available pod there. */
export function waitingFor(sim: SimCluster, node: Readonly<V1Node>, key: string): string[] {
  const name = node.metadata?.name ?? '';
  return GATING.filter(
    (g) => g.key === key && shouldRun(g, node) && !gatingPods(sim, g.name, name).some(isAvailable),
  ).map((g) => g.name);
}

const hasGateTaint = (node: Readonly<V1Node>, key: string) =>
  (node.spec?.taints ?? []).some((t) => t.key === key && t.effect === 'NoSchedule');

function releasedKeys(node: Readonly<V1Node>): string[] {
  const text = node.metadata?.annotations?.['everynode.dev/node-readiness-released'];
  return text === undefined ? [] : Object.keys(JSON.parse(text) as object);
}

/**
 * What is wrong with the gates of the settled cluster: each node against the model above.
 * `joinedWithBootstrapKey` names the nodes that registered with the BootstrapOnly key.
 */
export function gateProblems(
  sim: SimCluster,
  timeline: GateTimeline,
  joinedWithBootstrapKey: ReadonlySet<string>,
): string[] {
  const found: string[] = [];
  for (const node of sim.store.list('nodes') as unknown as V1Node[]) {
    const name = node.metadata?.name ?? '';
    const continuous = waitingFor(sim, node, CONTINUOUS_KEY);
    if (hasGateTaint(node, CONTINUOUS_KEY) && continuous.length === 0)
      found.push(
        `${name}: gated by ${CONTINUOUS_KEY} though every gating pod that should run there is available`,
      );
    if (!hasGateTaint(node, CONTINUOUS_KEY) && continuous.length > 0)
      found.push(
        `${name}: released from ${CONTINUOUS_KEY} while ${continuous} should run there and is not available`,
      );
    const boot = waitingFor(sim, node, BOOTSTRAP_KEY);
    const bootTainted = hasGateTaint(node, BOOTSTRAP_KEY);
    const released = releasedKeys(node).includes(BOOTSTRAP_KEY);
    if (bootTainted && boot.length === 0)
      found.push(`${name}: gated by ${BOOTSTRAP_KEY} though its boot pod is available or not wanted`);
    if (bootTainted && released) found.push(`${name}: ${BOOTSTRAP_KEY} restored after its release`);
    if (!bootTainted && joinedWithBootstrapKey.has(name) && !released)
      found.push(`${name}: ${BOOTSTRAP_KEY} lifted without the released marker`);
    const everBootTainted = timeline
      .taintVersions(name)
      .some((v) => v.taints.includes(`${BOOTSTRAP_KEY}:NoSchedule`));
    if (!joinedWithBootstrapKey.has(name) && everBootTainted)
      found.push(
        `${name}: tainted with the BootstrapOnly ${BOOTSTRAP_KEY} though it never registered with it`,
      );
    const dropped = droppedTaints(timeline, name, (t) => t.startsWith(OTHER_TAINT));
    if (dropped.length > 0) found.push(`${name}: another controller's taints dropped: ${dropped}`);
    const condition = node.status?.conditions?.find((c) => c.type === DAEMONSETS_READY);
    const blocked = (bootTainted && boot.length > 0) || continuous.length > 0;
    if (condition !== undefined && condition.status !== (blocked ? 'False' : 'True'))
      found.push(`${name}: condition ${condition.status} (${condition.message}) though blocked=${blocked}`);
  }
  return found;
}

/** A pod's availability as the gate writes are judged against it. */
interface Availability {
  readonly owner: string;
  readonly node: string;
  /** Available since then; undefined while it is not. */
  since?: number;
  /** The last moment it was seen available. */
  last?: number;
}

/**
 * Judges every gate write as it happens, against the pods as they were, with no allowance for
 * timing: each write is judged on the node version it wrote (a gate write is guarded by the
 * resourceVersion it decided from, so placement there is what the step judged), against what the
 * previous write of the same kind had to have seen.
 *
 * - A lift is wrong when a gating DaemonSet of the key should run there and none of its pods there
 *   was available at any moment since the gate last closed (the restore, or the node's join): the
 *   step lifted on a pod that it cannot have seen available.
 * - A restore is wrong when no gating DaemonSet of the key should run there, or when each that
 *   should has had a pod there available without a break since before the gate was last lifted:
 *   the lift saw them available, and nothing changed since.
 * - The DaemonSetsReady condition turning False is wrong in that case too, since its last True.
 *
 * Returns the wrong writes so far, and the unsubscribe function.
 */
export function judgeGateWrites(sim: SimCluster): { wrong: () => string[]; stop: () => void } {
  const pods = new Map<string, Availability>();
  const closedAt = new Map<string, number>();
  const liftedAt = new Map<string, number>();
  const trueAt = new Map<string, number>();
  const wrong: string[] = [];
  const podsOf = (owner: string, node: string) =>
    [...pods.values()].filter((a) => a.owner === owner && a.node === node);
  /** Some pod of `g` on `node` was available at a moment after `from`. */
  const availableAfter = (g: GatingSpec, node: string, from: number) =>
    podsOf(g.name, node).some((a) => a.since !== undefined || (a.last ?? Number.NEGATIVE_INFINITY) >= from);
  /** Some pod of `g` on `node` has been available without a break since before `from`. */
  const steadySince = (g: GatingSpec, node: string, from: number) =>
    podsOf(g.name, node).some((a) => a.since !== undefined && a.since <= from);

  const onPod = (event: StoreEvent, at: number) => {
    const pod = event.object as unknown as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller)?.name ?? '';
    const known = pods.get(uid) ?? { owner, node: pod.spec?.nodeName ?? pinnedNode(pod) ?? '' };
    pods.set(uid, known);
    const was = event.oldObject !== undefined && isAvailable(event.oldObject as unknown as V1Pod);
    const now = event.type !== 'DELETED' && isAvailable(pod);
    if (was || now) known.last = at;
    if (now && !was) known.since = at;
    if (!now) known.since = undefined;
  };

  const onNode = (event: StoreEvent, at: number) => {
    const node = event.object as unknown as V1Node;
    const before = event.oldObject as unknown as V1Node | undefined;
    const name = node.metadata?.name ?? '';
    const condition = (n: V1Node | undefined) =>
      n?.status?.conditions?.find((c) => c.type === DAEMONSETS_READY)?.status;
    const everyWanted = GATING.filter((g) => shouldRun(g, node));
    const lastTrue = trueAt.get(name);
    if (condition(node) === 'False' && condition(before) === 'True' && lastTrue !== undefined) {
      if (everyWanted.length > 0 && everyWanted.every((g) => steadySince(g, name, lastTrue)))
        wrong.push(
          `${name}: ${DAEMONSETS_READY} turned False though every gating pod that should run there was available since it was True`,
        );
    }
    if (condition(node) === 'True' && condition(before) !== 'True') trueAt.set(name, at);
    for (const key of new Set(GATING.map((g) => g.key))) {
      const id = `${name}\u0000${key}`;
      const wanted = GATING.filter((g) => g.key === key && shouldRun(g, node));
      if (before === undefined) {
        if (hasGateTaint(node, key)) closedAt.set(id, at);
        continue;
      }
      if (hasGateTaint(before, key) && !hasGateTaint(node, key)) {
        const since = closedAt.get(id) ?? Number.NEGATIVE_INFINITY;
        const missing = wanted.filter((g) => !availableAfter(g, name, since));
        if (missing.length > 0)
          wrong.push(
            `${name}: ${key} lifted though ${missing.map((g) => g.name)} had no pod available there since it closed`,
          );
        liftedAt.set(id, at);
      }
      if (!hasGateTaint(before, key) && hasGateTaint(node, key)) {
        const lifted = liftedAt.get(id);
        if (wanted.length === 0)
          wrong.push(`${name}: ${key} restored though no gating DaemonSet of it should run there`);
        else if (lifted !== undefined && wanted.every((g) => steadySince(g, name, lifted)))
          wrong.push(
            `${name}: ${key} restored though every gating pod that should run there was available since it was lifted`,
          );
        closedAt.set(id, at);
      }
    }
  };

  const unsubscribe = sim.store.subscribe((event) => {
    const at = Date.now();
    if (event.key === 'pods') onPod(event, at);
    else if (event.key === 'nodes' && event.type !== 'DELETED') onNode(event, at);
  });
  return { wrong: () => [...wrong], stop: unsubscribe };
}
