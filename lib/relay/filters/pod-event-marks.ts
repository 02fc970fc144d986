/**
 * How a forwarded pod event is marked for the router: whether it can change its node's readiness
 * gate (`gate-changes.ts`), free a slot of its DaemonSet's rolling update (`rollout-slots.ts`),
 * leave every pod of its DaemonSet ready (`rollout-completion.ts`), or break a safe rollout's
 * health rule (`health-signals.ts`); and whether the status coalescer may drop it. A marked change
 * still takes its status window (the router makes the same status refresh of it) but is never
 * dropped: its node's gate decision, or its DaemonSet's next rollout step, finished status or halt,
 * must not wait for the window — save a change marked only as freeing a slot, which follows the
 * first of its DaemonSet's slot window and whose step that first one already brings.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import { changesNodeGate } from './gate-changes.ts';
import { mayBreakHealthRule } from './health-signals.ts';
import { settlesDaemonSet } from './rollout-completion.ts';
import { freesRolloutSlot } from './rollout-slots.ts';
import type { StatusCoalescer } from './status-coalescer.ts';

/** The marks of one pod event. */
export interface PodEventMarks {
  readonly gatesNode: boolean;
  readonly rolloutSlot: boolean;
  readonly settles: boolean;
  readonly healthSignal: boolean;
  /** The coalescer drops it: a later change of its window brings the same step. */
  readonly coalesced: boolean;
}

/** The marks of the forwarded pod event (`type`, with changed facets `changes`) of `pod` at `at`. */
export function podEventMarks(
  context: RelayNodeContext | undefined,
  coalescer: StatusCoalescer | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
  at: Date,
): PodEventMarks {
  const gatesNode = changesNodeGate(context, type, changes, pod);
  const rolloutSlot = freesRolloutSlot(context, type, changes, pod);
  const settles = !rolloutSlot && settlesDaemonSet(context, type, changes, pod);
  const healthSignal = mayBreakHealthRule(context, type, changes, pod);
  const marked = gatesNode || rolloutSlot || settles || healthSignal;
  const statusCoalesced = coalescer?.coalesces(type, changes, pod, at) === true;
  // A status-only change marked only as freeing a slot follows the first of its slot window
  // (`settles` is never set beside `rolloutSlot`).
  const onlySlot = rolloutSlot && !gatesNode && !healthSignal;
  const slotCoalesced = rolloutSlot && coalescer?.coalescesSlot(pod, at) === true;
  const coalesced = statusCoalesced && (!marked || (onlySlot && slotCoalesced));
  return { gatesNode, rolloutSlot, settles, healthSignal, coalesced };
}
