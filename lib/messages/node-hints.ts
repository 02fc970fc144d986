/**
 * Node hints: what the relay knew around a node's watch event, carried on the trigger and on the
 * `node` message it becomes, so that a node joining a cluster costs its pod creates and nothing else.
 *
 * Design. The relay watches nodes, everynode's pods and the managed DaemonSets, so when it forwards
 * a node event it also knows the node's scheduling facts, the pods targeting that node and the
 * version of every managed DaemonSet — what upstream's controller reads from its informers. The
 * `node` step then:
 * 1. takes each DaemonSet from the per-process cache keyed by `uid` + `resourceVersion` (exact: an
 *    object at a given version never changes), else from the hints themselves, which carry every
 *    DaemonSet whole when they fit; any miss costs one LIST of DaemonSets for them all; and its
 *    revision hash from the hints (the relay watches ControllerRevisions), else from its cache or one
 *    LIST of revisions;
 * 2. rebuilds the node and pods with `nodeFromHint` / `podFromHint`, plans with `lib/core`, executes;
 * 3. decides the node's readiness gates on the hinted node too, whose hint carries the gate state
 *    (`node-gate-hint.ts`: the released marker and everynode's condition), so a release costs its
 *    writes alone; a hint without it (an older relay's) costs one GET of the node.
 * Stale hints are as safe as a pair's (see `pair-hints.ts`): creates use deterministic pod names
 * (409 AlreadyExists = done), deletes carry the hinted `uid` + `resourceVersion` preconditions (409
 * Conflict = re-read the pair), and a delete because of the node's facts is planned again on the
 * node as one GET finds it; the gate's merge patch carries the hinted node's resourceVersion as a
 * precondition (409 Conflict = read the node and decide again). Hints older than the handler's
 * limit, hinted pods that are terminating, a replayed or redelivered message, and a node without
 * hints (DELETED, EC2 events, resyncs) are read from the API server.
 */
import * as z from 'zod';
import { nodeHintSchema, podHintSchema } from './pair-hints.ts';

/**
 * The largest serialized hints the relay attaches: EventBridge bills a trigger per 64 KB, and a
 * node with more pods or DaemonSets than fit is simply read by the `node` step.
 */
export const MAX_NODE_HINTS_BYTES = 48 * 1024;

/** A managed DaemonSet as the relay last saw it. */
export const daemonSetVersionSchema = z.object({
  uid: z.string().min(1),
  resourceVersion: z.string().min(1),
  /**
   * The controller-revision-hash of its new pods at that version, as the ControllerRevisions the
   * relay watches say (absent when the relay does not know them: the step then asks its cache, else
   * lists them).
   */
  revisionHash: z.string().min(1).max(63).optional(),
  /**
   * The DaemonSet itself at that version, as the API server sends it less its managedFields: present
   * when every managed DaemonSet fits in the hints, so that even a process with an empty cache plans
   * without a read. The step uses it only when its uid and resourceVersion are the entry's.
   */
  object: z.record(z.string(), z.unknown()).optional(),
});

/** A managed DaemonSet as the relay last saw it. */
export type DaemonSetVersion = z.infer<typeof daemonSetVersionSchema>;

/** The hints of a `node` message. */
export const nodeHintsSchema = z.object({
  /** When the relay saw the node event; hints older than the handler's limit are ignored. */
  observedAt: z.iso.datetime({ offset: true }),
  node: nodeHintSchema,
  /** Every managed DaemonSet (of the managed kind) the relay knew of. */
  daemonSets: z.array(daemonSetVersionSchema),
  /** everynode's pods bound or pinned to the node. */
  pods: z.array(podHintSchema),
});

/** The hints of a `node` message. */
export type NodeHints = z.infer<typeof nodeHintsSchema>;
