/**
 * The work messages of the FIFO work queue
 * (docs/design.md, 6. Work messages, FIFO groups and de-duplication ids), version 1: `pair` makes
 * one (DaemonSet, node) pair right, `daemonset` runs the DaemonSet-wide steps, `node` fans out the
 * pairs of one node for every managed DaemonSet. Unknown fields are ignored, so a later version 1
 * writer may add optional fields; anything else needs `v: 2`.
 */
import * as z from 'zod';
import { managedKinds } from '../kube/managed-kind.ts';
import { messageCauseSchema } from './message-cause.ts';
import { nodeHintsSchema } from './node-hints.ts';
import { pairHintsSchema } from './pair-hints.ts';
import { gateChangeSchema } from './trigger.ts';

/** The message format version this code writes and reads. */
export const WORK_MESSAGE_VERSION = 1;

/** The kinds of work message. */
export const workMessageKinds = ['pair', 'daemonset', 'node'] as const;

/** A kind of work message. */
export type WorkMessageKind = (typeof workMessageKinds)[number];

// Names are Kubernetes object names (DNS subdomains, at most 253 characters).
const objectName = z.string().min(1).max(253);

const common = {
  v: z.literal(WORK_MESSAGE_VERSION),
  cause: messageCauseSchema,
  /** The managed kind the sender meant; the handler rejects a message for another kind. */
  managedKind: z.enum(managedKinds).optional(),
};

/** Make the DaemonSet `daemonSet` right on node `node`. */
export const pairMessageSchema = z.object({
  ...common,
  kind: z.literal('pair'),
  daemonSet: z.object({ namespace: objectName, name: objectName, uid: z.string().min(1) }),
  node: z.object({ name: objectName }),
  hints: pairHintsSchema.optional(),
  /**
   * A pod of the DaemonSet's namespace without a controller, matching its selector and targeting
   * the node, that the relay saw appear: the step adopts it and then makes the pair right, deleting
   * it when it is extra, as upstream does on an orphan's ADD (docs/design.md, 14. The pair step).
   */
  orphan: z.object({ name: objectName, uid: z.string().min(1).max(64) }).optional(),
});

/** Run the DaemonSet-wide steps of `daemonSet`; without uid, of whichever DaemonSet has that name now. */
export const daemonSetMessageSchema = z.object({
  ...common,
  kind: z.literal('daemonset'),
  daemonSet: z.object({ namespace: objectName, name: objectName, uid: z.string().min(1).optional() }),
  /**
   * The resourceVersion of the newest node change that can move a placement the relay had seen when
   * it sent the trigger behind this message: a process holding a node LIST at least that new may
   * plan on it instead of listing every node again (docs/design.md, 15. The DaemonSet step). Absent
   * (resyncs, other senders): the step lists. Kept on requeues; not part of the de-duplication id.
   */
  nodesVersion: z.string().min(1).max(64).optional(),
  /**
   * The resourceVersion of the pod change behind this message (the newest change of the
   * DaemonSet's pods the relay had forwarded when it sent the trigger): a process keeping the
   * DaemonSet's pods catches them up by a watch to at least that version instead of listing them
   * all again (docs/design.md, 15. The DaemonSet step). Absent (DaemonSet changes, resyncs, other
   * senders): the step lists. Kept on requeues; not part of the de-duplication id.
   */
  podsVersion: z.string().min(1).max(64).optional(),
});

/** Make node `node` right for every managed DaemonSet. */
export const nodeMessageSchema = z.object({
  ...common,
  kind: z.literal('node'),
  node: z.object({ name: objectName }),
  hints: nodeHintsSchema.optional(),
  /**
   * Node readiness gate keys that may have stopped being gated (a gate removed, re-keyed, or its
   * DaemonSet deleted): the node step lifts the node's NoSchedule taint of each one no DaemonSet
   * gates now (docs/design.md, 26. Node readiness gates). Facts of no state, so kept on requeues,
   * replays and redeliveries.
   */
  gateKeys: gateChangeSchema.shape.keys.optional(),
});

/** Every work message, told apart by `kind`. */
export const workMessageSchema = z.discriminatedUnion('kind', [
  pairMessageSchema,
  daemonSetMessageSchema,
  nodeMessageSchema,
]);

/** A `pair` work message. */
export type PairMessage = z.infer<typeof pairMessageSchema>;
/** A `daemonset` work message. */
export type DaemonSetMessage = z.infer<typeof daemonSetMessageSchema>;
/** A `node` work message. */
export type NodeMessage = z.infer<typeof nodeMessageSchema>;
/** Any work message. */
export type WorkMessage = z.infer<typeof workMessageSchema>;

/**
 * The SQS body of `message`: its JSON after checking it against the schema, so that a sender
 * never enqueues a message the reconciler would send to the DLQ. Throws a ZodError otherwise.
 */
export function formatWorkMessage(message: Readonly<WorkMessage>): string {
  return JSON.stringify(workMessageSchema.parse(message));
}
