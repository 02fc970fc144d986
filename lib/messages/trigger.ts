/**
 * Triggers: the events on the `everynode` EventBridge bus that the router turns into work messages
 * (docs/design.md, 8. The router) — the relay's Kubernetes watch events, EC2 instance state changes
 * forwarded from the default bus, and scheduled resyncs. Each is an EventBridge event; the ingress
 * queue receives that event JSON as its message body.
 */
import * as z from 'zod';
import { ec2InstanceStates, relayTimers, watchEventTypes, watchedKinds } from './message-cause.ts';
import { nodeHintsSchema } from './node-hints.ts';
import { pairHintsSchema } from './pair-hints.ts';

/** `source` of the events the relay publishes. */
export const RELAY_SOURCE = 'everynode.relay';
/** `source` of everynode's scheduled events. */
export const SCHEDULER_SOURCE = 'everynode.scheduler';
/** `detail-type` of a relayed Kubernetes watch event. */
export const WATCH_DETAIL_TYPE = 'Kubernetes Watch Event';
/** `detail-type` of a resync request (the schedule, or the relay after a 410 relist). */
export const RESYNC_DETAIL_TYPE = 'Everynode Resync';
/** `source` and `detail-type` of EC2 instance state changes (AWS's, on the default bus). */
export const EC2_SOURCE = 'aws.ec2';
export const EC2_STATE_CHANGE_DETAIL_TYPE = 'EC2 Instance State-change Notification';
/** `source` and `detail-type` of a classic EventBridge schedule rule, also accepted as a resync. */
export const SCHEDULED_EVENT_SOURCE = 'aws.events';
export const SCHEDULED_EVENT_DETAIL_TYPE = 'Scheduled Event';

/** The EventBridge event envelope, with `replay-name` present on events replayed from the archive. */
export const eventBridgeEnvelopeSchema = z.object({
  version: z.string().optional(),
  id: z.string().min(1),
  'detail-type': z.string().min(1),
  source: z.string().min(1),
  account: z.string().optional(),
  time: z.iso.datetime({ offset: true }),
  region: z.string().optional(),
  resources: z.array(z.string()).optional(),
  detail: z.unknown(),
  'replay-name': z.string().min(1).optional(),
});

/** The most gate keys one gate change names: two for a DaemonSet's event, more after a relist. */
export const MAX_GATE_CHANGE_KEYS = 64;

/**
 * A change of the node readiness gates in use (docs/design.md, 26. Node readiness gates): every
 * node must be decided again, and `keys` are the gate taint keys that may have stopped being gated
 * (`GateChange` of `lib/core/node-gates/gate-change.ts`).
 */
export const gateChangeSchema = z.object({
  // A taint key is a qualified name: a DNS subdomain prefix (253), '/', a name (63).
  keys: z.array(z.string().min(1).max(317)).max(MAX_GATE_CHANGE_KEYS),
});

/** A gate change as a trigger carries it. */
export type GateChangeDetail = z.infer<typeof gateChangeSchema>;

/**
 * The detail of a relayed watch event: the identity of the object and what the router needs to
 * name its work, not the whole object (EventBridge bills per 64 KB): for nodes, the few facts the
 * `node` step plans from, as hints bounded to `MAX_NODE_HINTS_BYTES`.
 */
export const watchEventDetailSchema = z.object({
  v: z.literal(1),
  event: z.enum(watchEventTypes),
  kind: z.enum(watchedKinds),
  apiVersion: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().min(1).optional(),
  uid: z.string().min(1),
  resourceVersion: z.string().min(1),
  /** Pods: their controller, so the router can name the DaemonSet of the pair. */
  controller: z
    .object({ apiVersion: z.string(), kind: z.string(), name: z.string().min(1), uid: z.string().min(1) })
    .optional(),
  /** Pods: the node they run on or are pinned to (`targetNodeName`). */
  nodeName: z.string().min(1).optional(),
  /**
   * MODIFIED events: which decision-relevant facets changed (the relay's `cluster-view/decision-facets.ts` names
   * them; `terminal` = a pod's phase became Failed or Succeeded). Absent for ADDED and DELETED and in
   * triggers from elsewhere: the router then assumes anything may have changed.
   */
  changes: z.array(z.string().min(1)).max(16).optional(),
  /**
   * Pods: the pod's DaemonSet gates its node (a valid node readiness gate) and this event may change
   * whether the pod counts as available there, so the router also sends the node's `node` step,
   * which lifts or restores the gate taint at once rather than after a status window
   * (docs/design.md, 26. Node readiness gates). Absent (older relays, other senders) means false.
   */
  gatesNode: z.boolean().optional(),
  /**
   * Pods: the pod's DaemonSet is mid-rollout with old pods waiting for a slot, and this event can
   * free one (the pod turned ready, or, when the rollout surges, was removed), so the router also
   * sends the DaemonSet's `daemonset` step at the end of a short slot window rather than only after
   * the status window: the next old pods are deleted without waiting out the status window
   * (docs/design.md, 12. The status-refresh window). Absent (older relays, other senders) means
   * false.
   */
  rolloutSlot: z.boolean().optional(),
  /**
   * Pods: this event must reach the pod's DaemonSet step at once, so the router also sends its
   * `daemonset` step without waiting out the status window: it left every pod of the DaemonSet ready
   * while the DaemonSet's status still counts some not ready (docs/design.md, 12. The status-refresh
   * window). Absent (older relays, other senders) means false.
   */
  settles: z.boolean().optional(),
  /**
   * Pods: the pod is of the revision its DaemonSet's safe rollout is rolling, and it restarted or
   * lost its readiness, which may break a health rule, so the router also sends the DaemonSet's step
   * at the end of the short rollout window rather than the status window (docs/design.md, 30.
   * Rollouts that stop themselves). Absent (older relays, other senders) means false.
   */
  healthSignal: z.boolean().optional(),
  /**
   * Pods and DaemonSets: the resourceVersion of the newest node change that can move a placement the
   * relay had forwarded (or relisted) when it sent this trigger, passed on to the `daemonset`
   * messages made of it: a process holding a node LIST at least that new plans on it
   * (docs/design.md, 15. The DaemonSet step). Absent (older relays, other senders): the step lists.
   */
  nodesVersion: z.string().min(1).max(64).optional(),
  /**
   * DaemonSets: the event changed the DaemonSet's effective node readiness gate (declared, removed,
   * its key, mode or dry run changed; deleted or being deleted while gating), so the router also
   * sends every node's `node` step, naming the keys that may have stopped being gated. Absent
   * (older relays, other senders, any other change) means no gate changed.
   */
  gateChange: gateChangeSchema.optional(),
  /**
   * Nodes, ADDED and MODIFIED, and pods that gate their node: what the relay knew of the node, its
   * pods and the managed DaemonSets (`node-hints.ts`), passed on to the `node` message; absent when
   * it would not fit.
   */
  hints: nodeHintsSchema.optional(),
  /** Pods of a managed DaemonSet: the relay's hints of the pod's pair, passed on to a `pair` message. */
  pairHints: pairHintsSchema.optional(),
  /**
   * Pods without a controller that match the selector of this managed DaemonSet of their namespace
   * (the relay's orphan watch, `relay/watches/orphan-watches.ts`): the router sends the pair of the
   * DaemonSet and the pod's node, naming the pod, whose step adopts it and deletes it if it is extra
   * (docs/design.md, 7. The relay). Absent: a pod without a controller makes a `daemonset` message
   * for every managed DaemonSet of its namespace.
   */
  adoptableBy: z.object({ name: z.string().min(1).max(253), uid: z.string().min(1).max(64) }).optional(),
  /**
   * Nodes: the node's Ready condition turned False or Unknown while these managed DaemonSets roll a
   * revision with health rules whose pod runs on it (`relay/filters/health-signals.ts`), or its
   * allocatable or labels changed while these DaemonSets size their pods per node and run one on it
   * (`relay/filters/sized-nodes.ts`), so the router also sends each one's `daemonset` step at the
   * end of the short rollout window, listing the nodes afresh: the step that sees the health rule
   * broken halts the rollout (docs/design.md, 30. Rollouts that stop themselves), the one that sees
   * a pod of the wrong size updates it. Absent (older relays, other senders, any other change): none.
   */
  rollouts: z
    .array(z.object({ namespace: z.string().min(1), name: z.string().min(1), uid: z.string().min(1) }))
    .max(16)
    .optional(),
  /**
   * Set when a relay timer sent the trigger rather than the watch, naming it (`relayTimers`):
   * `gate-wait`, a node (MODIFIED, at the version the relay knows, with its hints) still
   * bootstrapping behind its gate taint when its grace ends, so its `node` step shows it waiting
   * (docs/design.md, 26. Node readiness gates). The router carries it into the cause. Absent on
   * watch events.
   */
  timer: z.enum(relayTimers).optional(),
});

/**
 * The `changes` of a pod event that can change whether the pod counts as available on its node:
 * readiness, phase (a terminal one also names `terminal`) and deletion. A gating pod's event with
 * one of them, or without `changes` (anything may have changed), reaches its node's gate decision.
 */
export const NODE_GATE_CHANGES: ReadonlySet<string> = new Set(['ready', 'phase', 'terminal', 'deleting']);

/** The detail of a relayed watch event. */
export type WatchEventDetail = z.infer<typeof watchEventDetailSchema>;

/** The detail of an EC2 Instance State-change Notification. */
export const ec2StateChangeDetailSchema = z.object({
  'instance-id': z.string().regex(/^i-[0-9a-f]+$/),
  state: z.enum(ec2InstanceStates),
});

/** The detail of a resync request; `scope` limits it to one DaemonSet, when given. */
export const resyncDetailSchema = z.object({
  v: z.literal(1).optional(),
  reason: z.string().optional(),
  scope: z.object({ namespace: z.string().min(1), name: z.string().min(1) }).optional(),
  /**
   * A relay's relist of the DaemonSets found gates changed since its last view: every node's
   * `node` step is sent too, as for a DaemonSet event's `gateChange`.
   */
  gateChange: gateChangeSchema.optional(),
});

/** What every trigger carries: its EventBridge id and time, and the replay that resent it, if any. */
interface TriggerBase {
  eventId: string;
  time: string;
  replayName?: string;
}

/** A trigger, parsed and told apart by `type`. */
export type Trigger =
  | (TriggerBase & { type: 'watch'; watch: WatchEventDetail })
  | (TriggerBase & { type: 'ec2'; instanceId: string; state: (typeof ec2InstanceStates)[number] })
  | (TriggerBase & {
      type: 'resync';
      reason?: string;
      scope?: { namespace: string; name: string };
      gateChange?: GateChangeDetail;
    });
