/**
 * Why a work message exists: the watch event, EC2 event, resync tick, replay or requeue that
 * produced it. The cause is what makes two messages for the same target duplicates or not
 * (see `messageDeduplicationId`), and it is kept for logs and metrics.
 */
import * as z from 'zod';

/** The Kubernetes kinds whose watch events produce work. */
export const watchedKinds = ['Node', 'Pod', 'DaemonSet'] as const;

/** A kind whose watch events produce work. */
export type WatchedKind = (typeof watchedKinds)[number];

/** The watch event types that carry an object (BOOKMARK and ERROR never become work). */
export const watchEventTypes = ['ADDED', 'MODIFIED', 'DELETED'] as const;

/** The EC2 instance states of an `EC2 Instance State-change Notification`. */
export const ec2InstanceStates = [
  'pending',
  'running',
  'shutting-down',
  'terminated',
  'stopping',
  'stopped',
] as const;

/**
 * The relay's timers, whose triggers name an object at a version as a watch event does but stand
 * for no change of it: `gate-wait`, a node still bootstrapping behind its gate taint when the grace
 * after which it is shown waiting ends (docs/design.md, 26. Node readiness gates).
 */
export const relayTimers = ['gate-wait'] as const;

/** A relay timer. */
export type RelayTimer = (typeof relayTimers)[number];

/**
 * A watch event of the object named by `kind`, at `resourceVersion` — the version of the object
 * the relay saw, so a duplicate of the same event (overlapping relays, a resent batch) is dropped
 * by FIFO de-duplication while a later change of the same object is not. `timer` names the relay
 * timer that sent it instead of the watch: its work is never dropped as a duplicate of the watch
 * event of the same version, while two relays' triggers of one timer for one version are.
 */
export const watchCauseSchema = z.object({
  type: z.literal('watch'),
  event: z.enum(watchEventTypes),
  kind: z.enum(watchedKinds),
  resourceVersion: z.string().min(1),
  timer: z.enum(relayTimers).optional(),
});

/** An EC2 instance state change, identified by its EventBridge event id. */
export const ec2CauseSchema = z.object({
  type: z.literal('ec2'),
  eventId: z.string().min(1),
  instanceId: z.string().regex(/^i-[0-9a-f]+$/, 'expected an EC2 instance id such as i-0123456789abcdef0'),
  state: z.enum(ec2InstanceStates),
});

/**
 * A re-check of everything (the schedule, a relay's relist, `everynode resync`): `at` is when it was
 * asked (an EventBridge event's time, to the second) and `eventId` the event asking, so two resyncs
 * within one second are distinct work while one event delivered twice is not. Without `eventId`
 * (messages sent before it was carried) the tick's time alone tells resyncs apart.
 */
export const resyncCauseSchema = z.object({
  type: z.literal('resync'),
  at: z.iso.datetime({ offset: true }),
  eventId: z.string().min(1).optional(),
});

/**
 * An archived trigger replayed (EventBridge `StartReplay`, or the local journal): `replayName`
 * names the replay and `eventId` the replayed event, so a replay is never de-duplicated against
 * the original event, nor against another replay of the same window.
 */
export const replayCauseSchema = z.object({
  type: z.literal('replay'),
  replayName: z.string().min(1),
  eventId: z.string().min(1),
});

/**
 * Work the reconciler sent itself, delayed: waiting for a terminating pod, failed-pod backoff,
 * minReadySeconds, a 429. `requestedAt` makes every requeue distinct work, so a second wait for the
 * same reason within five minutes is not dropped as a duplicate of the first.
 */
export const requeueCauseSchema = z.object({
  type: z.literal('requeue'),
  reason: z.string().min(1).max(256),
  attempt: z.number().int().nonnegative().optional(),
  /**
   * Retryable failures in a row the message was sent back for (absent: none). Counted apart from
   * `attempt`, so a message that waited often (terminating pods, status windows) still gets the
   * whole failure backoff before it is left to SQS redelivery.
   */
  failures: z.number().int().positive().optional(),
  requestedAt: z.iso.datetime({ offset: true }),
});

/** Every cause of a work message, told apart by `type`. */
export const messageCauseSchema = z.discriminatedUnion('type', [
  watchCauseSchema,
  ec2CauseSchema,
  resyncCauseSchema,
  replayCauseSchema,
  requeueCauseSchema,
]);

/** Why a work message exists. */
export type MessageCause = z.infer<typeof messageCauseSchema>;
