/**
 * The router (docs/design.md, 8. The router): turns one ingress-queue message — a trigger from the
 * bus, or a delayed work envelope — into work messages on the FIFO work queue.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type ParseResult, parseJsonObject } from '../messages/parse-json-object.ts';
import { causeOfTrigger, triggerFromJson } from '../messages/parse-trigger.ts';
import { PoisonMessageError } from '../messages/poison-message-error.ts';
import {
  isBeyondRequeueCap,
  isRequeueBody,
  MAX_REQUEUE_WAIT_SECONDS,
  MAX_ROUTER_HOLD_MS,
  requeueEnvelopeOf,
} from '../messages/requeue-envelope.ts';
import type { Trigger } from '../messages/trigger.ts';
import { delayedIngressMessage } from '../queue/delayed-ingress-message.ts';
import type { OutgoingMessage } from '../queue/send-messages.ts';
import type { OutgoingWork } from '../queue/work-senders.ts';
import { routerCounterNames as names, type RouterDeps } from './router-deps.ts';
import { routeEc2 } from './router-ec2.ts';
import { routeResync } from './router-resync.ts';
import { sendInLanes } from './router-send-lanes.ts';
import { routeWatch } from './router-watch.ts';
import { outgoingOf, type RoutedWork } from './router-work.ts';

/** What became of one ingress message. */
export type RouteOutcome =
  | { readonly type: 'routed'; readonly work: number; readonly delayed: number }
  | { readonly type: 'forwarded' | 'delayed' }
  | { readonly type: 'ignored' | 'unusable'; readonly reason: string };

/**
 * Remembers the de-duplication ids of delayed work this process sent recently, so a burst of
 * readiness changes sends one status refresh per window instead of one per change. A cache for
 * speed only: the work queue's de-duplication would drop the copies anyway.
 */
export class RecentlySent {
  private readonly until = new Map<string, number>();

  /** True when `id` was sent and its window has not ended at `now`. */
  has(id: string, now: number): boolean {
    const until = this.until.get(id);
    return until !== undefined && until > now;
  }

  /** Remembers `id` until `until` (ms); forgets entries that ended. */
  add(id: string, until: number, now: number): void {
    if (this.until.size > 10_000) for (const [key, end] of this.until) if (end <= now) this.until.delete(key);
    this.until.set(id, until);
  }

  /** Forgets `id`: its send failed, and the message that asked for it will be routed again. */
  forget(id: string): void {
    this.until.delete(id);
  }
}

/**
 * Routes the ingress message `body`: a requeue envelope is forwarded to the work queue when due and
 * sent round again otherwise; a trigger becomes its work (see `routeWatch`, `routeEc2`,
 * `routeResync`). A body that is neither, or a trigger that names nothing everynode manages, is
 * logged and counted and resolves as `unusable` / `ignored`: retrying it could never help. Rejects
 * on failures worth retrying (the API server or a queue unreachable), and with a not retryable
 * `PoisonMessageError` on a requeue envelope due more than a day ahead, which SQS then moves to the
 * ingress DLQ.
 */
export async function routeIngressMessage(
  body: string,
  deps: RouterDeps,
  recent: RecentlySent = new RecentlySent(),
): Promise<RouteOutcome> {
  const json = parseJsonObject(body);
  if (!json.ok) return unusable(deps, json);
  if (isRequeueBody(json.value)) return routeRequeue(json.value, deps);
  const parsed = triggerFromJson(json.value);
  if (!parsed.ok) return unusable(deps, parsed);
  deps.counters.count(names.triggers);
  const routed = await routeTrigger(parsed.trigger, deps);
  if ('ignored' in routed) {
    deps.counters.count(names.ignored);
    deps.logger.debug('trigger ignored', { reason: routed.ignored, eventId: parsed.trigger.eventId });
    return { type: 'ignored', reason: routed.ignored };
  }
  const now = deps.clock();
  const fresh = routed.work.filter(
    (w) => w.to === 'work' || !w.deduplicationId || !recent.has(w.deduplicationId, now.getTime()),
  );
  const { work, delayed } = outgoingOf(fresh, now);
  // Remembered before the send, not after: the records of a batch are routed concurrently, and a
  // window's readiness changes arrive together, so each of them passed the check while the first
  // one's send was in flight (18,201 refreshes sent for about 2,000 steps of a 20,000-node rollout).
  const reserved: string[] = [];
  for (const w of fresh)
    if (w.to === 'delayed' && w.deduplicationId) {
      recent.add(w.deduplicationId, w.notBefore.getTime(), now.getTime());
      reserved.push(w.deduplicationId);
    }
  try {
    await send(deps, work, delayed);
  } catch (error) {
    for (const id of reserved) recent.forget(id);
    throw error;
  }
  deps.counters.count(names.statusRefreshes, delayed.length);
  return { type: 'routed', work: work.length, delayed: delayed.length };
}

async function routeTrigger(
  trigger: Readonly<Trigger>,
  deps: RouterDeps,
): Promise<{ work: RoutedWork[] } | { ignored: string }> {
  const cause = causeOfTrigger(trigger);
  switch (trigger.type) {
    case 'watch':
      return routeWatch(deps, trigger.watch, trigger.watch.changes, cause);
    case 'ec2':
      return routeEc2(deps, trigger.instanceId, cause);
    case 'resync':
      return { work: await routeResync(deps, trigger.scope, cause, trigger.gateChange) };
  }
}

/**
 * Forwards a due requeue envelope to the work queue — one due within {@link MAX_ROUTER_HOLD_MS}
 * after waiting for it — or sends it round again for the rest of its wait. Rejects, not retryable,
 * an envelope due more than {@link MAX_REQUEUE_WAIT_SECONDS} from now (see {@link beyondCap}).
 */
async function routeRequeue(
  json: Readonly<Record<string, unknown>>,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const parsed = requeueEnvelopeOf(json);
  if (!parsed.ok) return unusable(deps, parsed);
  const { envelope } = parsed;
  const now = deps.clock();
  const notBefore = new Date(envelope.notBefore);
  if (isBeyondRequeueCap(notBefore, now)) throw beyondCap(envelope.notBefore, now);
  const early = notBefore.getTime() - now.getTime();
  if (early <= MAX_ROUTER_HOLD_MS) {
    if (early > 0) await (deps.sleep ?? sleep)(early);
    const { message, deduplicationId } = envelope;
    await deps.work.send([{ message, ...(deduplicationId ? { deduplicationId } : {}) }]);
    deps.counters.count(names.requeuesForwarded);
    return { type: 'forwarded' };
  }
  await deps.ingress([delayedIngressMessage(envelope.message, notBefore, now, envelope.deduplicationId)]);
  deps.counters.count(names.requeuesDelayed);
  return { type: 'delayed' };
}

async function send(deps: RouterDeps, work: OutgoingWork[], delayed: OutgoingMessage[]): Promise<void> {
  await Promise.all([
    work.length > 0 ? sendInLanes(deps.work, work) : undefined,
    delayed.length > 0 ? deps.ingress(delayed) : undefined,
  ]);
  deps.counters.count(names.workMessages, work.length);
}

/**
 * The error of an envelope due too far ahead. Unlike an unusable trigger, which is dropped, it is
 * refused, so that SQS moves it to the ingress DLQ after maxReceiveCount receives: it carries a
 * valid work message that an operator may want to look at, and the router has no DLQ sender of its
 * own (the ingress queue is a standard queue, so the receives hold up no other message).
 */
function beyondCap(notBefore: string, now: Date): PoisonMessageError {
  return new PoisonMessageError(
    `requeue envelope due at ${notBefore}, more than ${MAX_REQUEUE_WAIT_SECONDS} s after ${now.toISOString()}: no requeue waits that long`,
  );
}

function unusable(deps: RouterDeps, parsed: Extract<ParseResult<'x', unknown>, { ok: false }>): RouteOutcome {
  deps.counters.count(names.unusable);
  deps.logger.warn('dropping an ingress message the router cannot use', { reason: parsed.reason });
  return { type: 'unusable', reason: parsed.reason };
}
