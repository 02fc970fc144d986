/**
 * What the node readiness gate tests watch as it happens: when each node joined, when each of its
 * gate taints went and came back, when each pod turned ready or was bound, every version of each
 * node's taints and of its `everynode.dev/DaemonSetsReady` condition. Read in-process from the
 * simulated cluster's change feed, so each time is that of the write itself, not of a later poll:
 * "gating pod ready → taint removed" is measured between two store writes.
 */
import type { CoreV1Event, V1Node, V1NodeCondition, V1Pod, V1Taint } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { StoreEvent } from '../../lib/sim/storage/store.ts';

/** The node condition the gates keep. */
export const DAEMONSETS_READY = 'everynode.dev/DaemonSetsReady';

/** One version of a node's taints, as `key=value:Effect` texts, and when it was written. */
export interface TaintVersion {
  readonly at: number;
  readonly taints: readonly string[];
}

/** One change of a node's DaemonSetsReady condition. */
export interface ConditionChange {
  readonly at: number;
  readonly status: string;
  readonly message: string;
}

/** A pod's moments that the gate tests look at (epoch ms). */
export interface PodMoments {
  readonly namespace: string;
  readonly name: string;
  /** A replacement may have its predecessor's name (docs/design.md, 3): pods are told apart by uid. */
  readonly uid: string;
  /** The controlling DaemonSet's name, '' for a bare pod. */
  readonly owner: string;
  readonly node: string;
  boundAt?: number;
  /** When its deletion began (deletionTimestamp set, or deleted at once). */
  deletingAt?: number;
  /** Each time its Ready condition turned True. */
  readonly readyAt: number[];
  /** The scheduler's PodScheduled=False messages, in order. */
  readonly unschedulable: string[];
}

/** An Event about a node, and when it was written. */
export interface NodeEventMoment {
  readonly at: number;
  readonly reason: string;
  readonly message: string;
}

/** The recorded history of a simulated cluster's nodes and pods since {@link watchGates}. */
export interface GateTimeline {
  /** When the node was created. */
  joinedAt(node: string): number | undefined;
  /** Each time the node lost its `key`:NoSchedule taint. */
  liftedAt(node: string, key: string): number[];
  /** Each time the node got its `key`:NoSchedule taint back (not its first registration). */
  restoredAt(node: string, key: string): number[];
  /** Every version of the node's taints, its first included. */
  taintVersions(node: string): readonly TaintVersion[];
  /** Every change of the node's DaemonSetsReady condition (status or message). */
  conditionChanges(node: string): readonly ConditionChange[];
  /** The pods seen on (or pinned to) the node, with their moments. */
  podsOn(node: string): readonly PodMoments[];
  /** The Events about the node written so far (each once, at its creation). */
  eventsOn(node: string): readonly NodeEventMoment[];
  /** The pod `namespace/name` (its latest incarnation under that name). */
  pod(namespace: string, name: string): PodMoments | undefined;
  stop(): void;
}

/** `key=value:Effect` of a taint. */
export const taintText = (t: Readonly<V1Taint>) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

const hasGateTaint = (node: V1Node | undefined, key: string) =>
  (node?.spec?.taints ?? []).some((t) => t.key === key && t.effect === 'NoSchedule');

const isReady = (pod: V1Pod | undefined) =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

const conditionOf = (node: V1Node | undefined): V1NodeCondition | undefined =>
  node?.status?.conditions?.find((c) => c.type === DAEMONSETS_READY);

/** Starts recording `sim`'s node and pod changes. */
export function watchGates(sim: SimCluster): GateTimeline {
  const joined = new Map<string, number>();
  const versions = new Map<string, TaintVersion[]>();
  const conditions = new Map<string, ConditionChange[]>();
  const pods = new Map<string, PodMoments>();
  const toggles = new Map<string, { lifted: number[]; restored: number[] }>();
  const togglesOf = (node: string, key: string) => {
    const id = `${node}\u0000${key}`;
    let found = toggles.get(id);
    if (!found) {
      found = { lifted: [], restored: [] };
      toggles.set(id, found);
    }
    return found;
  };

  const onNode = (event: StoreEvent, at: number) => {
    const node = event.object as unknown as V1Node;
    const before = event.oldObject as unknown as V1Node | undefined;
    const name = node.metadata?.name ?? '';
    if (event.type === 'DELETED') return;
    if (event.type === 'ADDED') joined.set(name, at);
    const taints = (node.spec?.taints ?? []).map(taintText);
    const history = versions.get(name) ?? [];
    if (history.at(-1)?.taints.join() !== taints.join()) history.push({ at, taints });
    versions.set(name, history);
    const keys = new Set([...(node.spec?.taints ?? []), ...(before?.spec?.taints ?? [])].map((t) => t.key));
    for (const key of keys) {
      if (before === undefined) continue;
      if (hasGateTaint(before, key) && !hasGateTaint(node, key)) togglesOf(name, key).lifted.push(at);
      if (!hasGateTaint(before, key) && hasGateTaint(node, key)) togglesOf(name, key).restored.push(at);
    }
    const condition = conditionOf(node);
    const last = conditions.get(name)?.at(-1);
    if (condition && (condition.status !== last?.status || condition.message !== last?.message)) {
      conditions.set(name, [
        ...(conditions.get(name) ?? []),
        { at, status: condition.status, message: condition.message ?? '' },
      ]);
    }
  };

  const onPod = (event: StoreEvent, at: number) => {
    const pod = event.object as unknown as V1Pod;
    const before = event.oldObject as unknown as V1Pod | undefined;
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const uid = pod.metadata?.uid ?? '';
    let moments = pods.get(uid);
    if (moments === undefined) {
      const owner = pod.metadata?.ownerReferences?.find((r) => r.controller)?.name ?? '';
      const node = targetNodeName(pod) ?? pod.spec?.nodeSelector?.['kubernetes.io/hostname'] ?? '';
      moments = { namespace, name, uid, owner, node, readyAt: [], unschedulable: [] };
      pods.set(uid, moments);
    }
    const deleting = event.type === 'DELETED' || pod.metadata?.deletionTimestamp !== undefined;
    if (deleting && moments.deletingAt === undefined) moments.deletingAt = at;
    if (event.type === 'DELETED') return;
    if (pod.spec?.nodeName && !before?.spec?.nodeName) moments.boundAt = at;
    if (isReady(pod) && !isReady(before)) moments.readyAt.push(at);
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (
      scheduled?.status === 'False' &&
      scheduled.message &&
      moments.unschedulable.at(-1) !== scheduled.message
    )
      moments.unschedulable.push(scheduled.message);
  };

  const events: Array<NodeEventMoment & { readonly node: string }> = [];
  const onEvent = (event: StoreEvent, at: number) => {
    const recorded = event.object as unknown as CoreV1Event;
    if (event.type !== 'ADDED' || recorded.involvedObject?.kind !== 'Node') return;
    const node = recorded.involvedObject.name ?? '';
    events.push({ at, node, reason: recorded.reason ?? '', message: recorded.message ?? '' });
  };

  const unsubscribe = sim.store.subscribe((event) => {
    const at = Date.now();
    if (event.key === 'nodes') onNode(event, at);
    else if (event.key === 'pods') onPod(event, at);
    else if (event.key === 'events') onEvent(event, at);
  });

  return {
    joinedAt: (node) => joined.get(node),
    liftedAt: (node, key) => [...togglesOf(node, key).lifted],
    restoredAt: (node, key) => [...togglesOf(node, key).restored],
    taintVersions: (node) => versions.get(node) ?? [],
    conditionChanges: (node) => conditions.get(node) ?? [],
    podsOn: (node) => [...pods.values()].filter((p) => p.node === node),
    eventsOn: (node) => events.filter((e) => e.node === node),
    pod: (namespace, name) =>
      [...pods.values()].filter((p) => p.namespace === namespace && p.name === name).at(-1),
    stop: unsubscribe,
  };
}

/**
 * The taints of `node` that appeared in some version and later vanished from one, among those
 * matching `watched` — a write that dropped another controller's taint shows here.
 */
export function droppedTaints(
  timeline: GateTimeline,
  node: string,
  watched: (taint: string) => boolean,
): string[] {
  const seen = new Set<string>();
  const dropped = new Set<string>();
  for (const version of timeline.taintVersions(node)) {
    for (const taint of seen) if (!version.taints.includes(taint)) dropped.add(taint);
    for (const taint of version.taints) if (watched(taint)) seen.add(taint);
  }
  return [...dropped].sort();
}
