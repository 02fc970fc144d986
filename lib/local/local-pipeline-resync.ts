/**
 * The start-up resync of the local pipeline (docs/design.md, 28. What a restart can lose). The
 * queues live in this process: a pipeline that starts has empty ones, whatever an earlier run on
 * the same state directory left waiting in its own — delayed steps above all (a rolling update
 * waiting out `minReadySeconds`, a status refresh, a recount, a failed pod's backoff, a node step
 * waiting for a gating pod to become available), which no watch event brings back. The relay
 * resumes from its checkpoint and publishes a resync only when it starts without one (or relists),
 * so a restarted run would leave such a rollout where it was. Like upstream's controller, which
 * syncs every DaemonSet when it starts (its informers' initial LIST adds each one to the work
 * queue), every start asks for a resync: the DaemonSet step of every managed DaemonSet and the
 * `node` step of every node — the latter decides each node's readiness gates with every gating
 * DaemonSet and requeues itself for a gating pod not yet available, which a DaemonSet step's gate
 * re-check does not (it sends only the nodes its view already disagrees with).
 */
import type { BusEvent } from '../queue/event-bus.ts';
import { resyncTriggerEvent } from '../relay/output/trigger.ts';

/** The reason the start-up resync carries (in the journal and the router's log). */
export const STARTUP_RESYNC_REASON =
  'everynode run started: work an earlier run left on its in-process queues (delayed steps above all) is gone';

/**
 * The start-up resync trigger at `now`: every managed DaemonSet's step, and — through a gate change
 * naming no key (`router-gate-fan-out.ts`: a `node` message per node, without `gateKeys`) — every
 * node's step.
 */
export function startupResyncEvent(now: Date): BusEvent {
  return resyncTriggerEvent(STARTUP_RESYNC_REASON, now, { keys: [] });
}
