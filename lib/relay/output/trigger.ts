/**
 * The triggers the relay publishes: one bus event per decision-relevant watch event, and a resync
 * request after a relist (docs/design.md, 7. The relay), in the format of
 * `lib/messages/trigger.ts`.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { GateChange } from '../../core/node-gates/gate-change.ts';
import type { TriggeringResource, WatchedObjects } from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import type { WatchedKind } from '../../messages/message-cause.ts';
import type { NodeHints } from '../../messages/node-hints.ts';
import type { PairHints } from '../../messages/pair-hints.ts';
import {
  RELAY_SOURCE,
  RESYNC_DETAIL_TYPE,
  WATCH_DETAIL_TYPE,
  type WatchEventDetail,
} from '../../messages/trigger.ts';
import type { BusEvent } from '../../queue/event-bus.ts';
import type { ObjectEvent } from '../cluster-view/facet-cache.ts';

const kinds: Record<TriggeringResource, WatchedKind> = {
  nodes: 'Node',
  pods: 'Pod',
  daemonsets: 'DaemonSet',
};

function podFields(pod: Readonly<V1Pod>): Pick<WatchEventDetail, 'controller' | 'nodeName'> {
  const ref = controllerOf(pod);
  const nodeName = targetNodeName(pod);
  return {
    ...(ref
      ? { controller: { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid } }
      : {}),
    ...(nodeName ? { nodeName } : {}),
  };
}

/**
 * The detail of the watch trigger for `event` of `resource` with the changed facets `changes`, and
 * the relay's hints, if any: of the node for a node, of the pod's pair for a pod (and of its node
 * when the pod gates it); `gatesNode` marks a pod event that can change its node's readiness gate,
 * `rolloutSlot` one that can free a slot of its DaemonSet's rolling update (`filters/rollout-slots.ts`),
 * `settles` one that leaves every pod of its DaemonSet ready (`filters/rollout-completion.ts`),
 * `healthSignal` one that may break its DaemonSet's safe rollout (`filters/health-signals.ts`),
 * `gateChange` a DaemonSet event that changed the DaemonSet's gate (`filters/gate-changes.ts`),
 * `adoptableBy` an orphan pod the DaemonSet named could adopt (`watches/orphan-watches.ts`),
 * `rollouts` the DaemonSets whose safe rollout a node turning NotReady may break
 * (`filters/health-signals.ts`).
 */
export function watchDetailOf<R extends TriggeringResource>(
  resource: R,
  event: Readonly<ObjectEvent<WatchedObjects[R]>>,
  changes: readonly string[],
  managedKind: ManagedKind,
  hints: {
    readonly node?: NodeHints;
    readonly pair?: PairHints;
    readonly gatesNode?: boolean;
    readonly rolloutSlot?: boolean;
    readonly settles?: boolean;
    readonly healthSignal?: boolean;
    readonly gateChange?: GateChange | undefined;
    readonly nodesVersion?: string | undefined;
    readonly adoptableBy?: { readonly name: string; readonly uid: string };
    readonly rollouts?: readonly {
      readonly namespace: string;
      readonly name: string;
      readonly uid: string;
    }[];
  } = {},
): WatchEventDetail {
  const meta =
    (event.object as { metadata?: { name?: string; namespace?: string; uid?: string } }).metadata ?? {};
  return {
    v: 1,
    event: event.type,
    kind: kinds[resource],
    apiVersion: resource === 'daemonsets' ? managedKind : 'v1',
    name: meta.name ?? '',
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    uid: meta.uid ?? '',
    resourceVersion: event.resourceVersion,
    ...(resource === 'pods' ? podFields(event.object as V1Pod) : {}),
    ...(changes.length > 0 ? { changes: [...changes] } : {}),
    ...(hints.gatesNode === true ? { gatesNode: true } : {}),
    ...(hints.rolloutSlot === true ? { rolloutSlot: true } : {}),
    ...(hints.settles === true ? { settles: true } : {}),
    ...(hints.healthSignal === true ? { healthSignal: true } : {}),
    ...(hints.gateChange ? { gateChange: { keys: [...hints.gateChange.keys] } } : {}),
    ...(hints.node ? { hints: hints.node } : {}),
    ...(hints.pair ? { pairHints: hints.pair } : {}),
    ...(resource !== 'nodes' && hints.nodesVersion ? { nodesVersion: hints.nodesVersion } : {}),
    ...(hints.adoptableBy ? { adoptableBy: { ...hints.adoptableBy } } : {}),
    ...(hints.rollouts?.length ? { rollouts: hints.rollouts.map((r) => ({ ...r })) } : {}),
  };
}

/** The bus event of a watch trigger, at `now`. */
export function watchTriggerEvent(detail: Readonly<WatchEventDetail>, now: Date): BusEvent {
  return { source: RELAY_SOURCE, detailType: WATCH_DETAIL_TYPE, detail, time: now };
}

/**
 * The bus event asking for a resync of every managed DaemonSet, for `reason` (a relist after 410
 * Gone, or a relay start without a checkpoint: changes may have been missed, so every DaemonSet's
 * pairs are checked again), with the gate change the relist found, if any (every node is then
 * decided again too).
 */
export function resyncTriggerEvent(reason: string, now: Date, gateChange?: GateChange): BusEvent {
  const detail = { v: 1, reason, ...(gateChange ? { gateChange: { keys: [...gateChange.keys] } } : {}) };
  return { source: RELAY_SOURCE, detailType: RESYNC_DETAIL_TYPE, detail, time: now };
}
