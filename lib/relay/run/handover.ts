/**
 * The rules by which relay runs on AWS hand the watch over to one another: a chain of successors
 * holding a lease, with the schedule only a watchdog. Pure: no I/O and no clock; every time is
 * passed in as epoch milliseconds.
 *
 * - Each run, at {@link successorDueAt}, invokes its successor asynchronously
 *   ({@link relaySuccessorEvent}). The successor always watches ({@link invocationDecision}): it
 *   resumes from the checkpoint, starts its watches and, once they are established, takes the
 *   lease in the checkpoint record when {@link mayTakeLease} allows it, writing per resource the
 *   later of the stored and its own resourceVersion ({@link laterResourceVersions}), so a takeover
 *   never moves the checkpoint back.
 * - Only the lease holder writes the checkpoint, refreshing the lease's heartbeat with every write
 *   ({@link RELAY_HEARTBEAT_MS}). It reads the record before each write, and every
 *   {@link RELAY_HANDOVER_POLL_MS} once it has invoked its successor; it stops, without writing
 *   again, as soon as another run holds a fresh lease ({@link shouldHandOver}), or at its deadline
 *   (timeout − flush reserve). Until then it invokes another successor whenever the last one has
 *   not taken over within {@link RELAY_SUCCESSOR_PATIENCE_MS} ({@link shouldReinvokeSuccessor}).
 * - The schedule fires every {@link RELAY_WATCHDOG_SECONDS}; its invocation exits at once while the
 *   lease is fresh ({@link isLeaseFresh}) and otherwise starts a run: recovery after a crash, a lost
 *   successor invocation or an API server outage.
 *
 * Two runs watch side by side only from the successor's takeover to the predecessor's next poll;
 * their duplicate events are absorbed by the work queue's de-duplication as in any overlap.
 */
import * as z from 'zod';
import type { TriggeringResource } from '../../kube/kube-port.ts';
import { compareResourceVersions } from '../../kube/resource-version.ts';

/**
 * How often the lease holder refreshes the lease's heartbeat: with every checkpoint write, so it
 * equals the checkpoint cadence `RELAY_CHECKPOINT_EVERY_MS` (run/run.ts) and costs no extra write.
 */
export const RELAY_HEARTBEAT_MS = 5_000;

/**
 * How young a heartbeat must be for its lease to count as held: more than three heartbeats, so a
 * holder whose checkpoint writes are throttled or retried for a while keeps its lease, while a
 * crashed holder is replaced within this plus one watchdog period.
 */
export const RELAY_LEASE_FRESH_MS = 20_000;

/**
 * How long before the end of its period a run invokes its successor: more than a cold start's p99
 * (a few seconds) plus the LIST and catch-up of the successor's start-up (about a second), plus the
 * asynchronous invocation's delivery, so the successor is normally watching before the period ends.
 */
export const RELAY_SUCCESSOR_LEAD_MS = 20_000;

/** How often a run that has invoked its successor reads the record to see whether it took over. */
export const RELAY_HANDOVER_POLL_MS = 1_000;

/**
 * How long a run waits for its successor to take the lease before invoking another: longer than a
 * slow start (cold start plus catch-up, even after a throttled first attempt), and short enough that
 * the second successor still takes over before the run's deadline (period + 45 s after its start).
 */
export const RELAY_SUCCESSOR_PATIENCE_MS = 30_000;

/**
 * The period of the relay schedule, now only a watchdog: the longest a relay can be missing after
 * its lease went stale. One invocation a minute costs ~1,440 short invocations a day.
 */
export const RELAY_WATCHDOG_SECONDS = 60;

/**
 * The relay function's reserved concurrency: a run and its successor side by side during a
 * hand-over; a third invocation (a watchdog tick, a late duplicate) is throttled or exits at once.
 */
export const RELAY_RESERVED_CONCURRENCY = 2;

/** The run holding the right to write the checkpoint, and when it last proved alive. */
export interface RelayLease {
  /** The holder's run id (its Lambda request id, which a retried invocation keeps). */
  readonly runId: string;
  /** The holder's last checkpoint write, as an ISO 8601 timestamp. */
  readonly heartbeatAt: string;
}

/** The stored form of a {@link RelayLease}, for the checkpoint's schema. */
export const relayLeaseSchema = z.object({ runId: z.string().min(1), heartbeatAt: z.iso.datetime() });

/** The lease as `runId` writes it at `now`. */
export function relayLease(runId: string, now: number): RelayLease {
  return { runId, heartbeatAt: new Date(now).toISOString() };
}

/**
 * Whether `lease` is held at `now`: its heartbeat is younger than {@link RELAY_LEASE_FRESH_MS}.
 * A heartbeat as far in the future counts as stale: a clock that wrong must not keep every other
 * run away forever.
 */
export function isLeaseFresh(lease: Readonly<RelayLease> | undefined, now: number): boolean {
  if (lease === undefined) return false;
  const age = now - Date.parse(lease.heartbeatAt);
  return Math.abs(age) < RELAY_LEASE_FRESH_MS;
}

/** What started an invocation: the watchdog schedule, or a predecessor naming itself. */
export type RelayTrigger = 'schedule' | 'successor';

/** The event a run sends to invoke its successor. */
export interface RelaySuccessorEvent {
  readonly everynode: 'relay-successor';
  readonly predecessor: string;
}

const successorEventSchema = z.object({
  everynode: z.literal('relay-successor'),
  predecessor: z.string().min(1),
});

/** The event invoking the successor of run `predecessor`. */
export function relaySuccessorEvent(predecessor: string): RelaySuccessorEvent {
  return { everynode: 'relay-successor', predecessor };
}

/** The trigger of an invocation's event: a successor event, else (the schedule's event) the watchdog. */
export function relayInvocation(event: unknown): { trigger: RelayTrigger; predecessor?: string } {
  const parsed = successorEventSchema.safeParse(event);
  return parsed.success
    ? { trigger: 'successor', predecessor: parsed.data.predecessor }
    : { trigger: 'schedule' };
}

/**
 * Whether an invocation runs the relay: a successor always does (its predecessor asked for it);
 * a watchdog invocation only when no run holds a fresh lease.
 */
export function invocationDecision(input: {
  readonly trigger: RelayTrigger;
  readonly lease: Readonly<RelayLease> | undefined;
  readonly now: number;
}): 'watch' | 'exit' {
  if (input.trigger === 'successor') return 'watch';
  return isLeaseFresh(input.lease, input.now) ? 'exit' : 'watch';
}

/**
 * When a run started at `startedAt` invokes its successor: {@link RELAY_SUCCESSOR_LEAD_MS} before
 * its period of `runSeconds` ends (at once when the period is shorter than the lead).
 */
export function successorDueAt(startedAt: number, runSeconds: number): number {
  return startedAt + Math.max(0, runSeconds * 1000 - RELAY_SUCCESSOR_LEAD_MS);
}

/**
 * Whether a run whose watches are established may take the lease: none is held, it is its own
 * (a retried invocation keeps its run id), its predecessor's, or stale. Otherwise another run
 * already took over (this one is a duplicate or late successor) and it exits.
 */
export function mayTakeLease(input: {
  readonly ownRunId: string;
  readonly predecessor?: string | undefined;
  readonly lease: Readonly<RelayLease> | undefined;
  readonly now: number;
}): boolean {
  const { lease } = input;
  if (lease === undefined || lease.runId === input.ownRunId) return true;
  if (input.predecessor !== undefined && lease.runId === input.predecessor) return true;
  return !isLeaseFresh(lease, input.now);
}

/**
 * Whether a run stops because another run holds a fresh lease: its successor (or a watchdog run)
 * took over. A stale lease of another run (it took over and died unseen) does not stop it: it may
 * take the lease back ({@link mayTakeLease}) and keeps watching meanwhile.
 */
export function shouldHandOver(input: {
  readonly ownRunId: string;
  readonly lease: Readonly<RelayLease> | undefined;
  readonly now: number;
}): boolean {
  const { lease } = input;
  return lease !== undefined && lease.runId !== input.ownRunId && isLeaseFresh(lease, input.now);
}

/**
 * Whether a run invokes another successor: it still holds the lease (no one took over) and the last
 * successor it invoked, at `invokedAt`, has had {@link RELAY_SUCCESSOR_PATIENCE_MS} to do so.
 */
export function shouldReinvokeSuccessor(input: {
  readonly ownRunId: string;
  readonly lease: Readonly<RelayLease> | undefined;
  readonly invokedAt: number;
  readonly now: number;
}): boolean {
  return input.lease?.runId === input.ownRunId && input.now - input.invokedAt >= RELAY_SUCCESSOR_PATIENCE_MS;
}

/** resourceVersions per triggering resource, as the checkpoint keeps them. */
export type ResourceVersions = Readonly<Partial<Record<TriggeringResource, string>>>;

/**
 * The versions a run taking over (or writing as holder) stores: per resource, the later of the
 * stored and its own, so the checkpoint never moves back while the predecessor was ahead. When the
 * two do not compare (not both well-formed integers), the stored one is kept; a resource only one
 * side names keeps that side's version.
 */
export function laterResourceVersions(stored: ResourceVersions, own: ResourceVersions): ResourceVersions {
  const later: Partial<Record<TriggeringResource, string>> = { ...stored };
  for (const resource of Object.keys(own) as TriggeringResource[]) {
    const mine = own[resource];
    if (mine === undefined) continue;
    const theirs = stored[resource];
    if (theirs === undefined || compareResourceVersions(theirs, mine) === -1) later[resource] = mine;
  }
  return later;
}
