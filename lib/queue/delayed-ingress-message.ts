/**
 * Delayed work on its way through the ingress queue. SQS FIFO queues cannot delay one message, so
 * work that must wait — a requeue of the reconciler (backoff, a terminating pod, minReadySeconds, a
 * 429's Retry-After), or a coalesced status refresh — travels through the INGRESS queue (standard,
 * per-message DelaySeconds up to 900 s) in a requeue envelope (`lib/messages/requeue-envelope.ts`).
 * The router forwards the work message once `notBefore` has passed, waiting out in-process the
 * fraction of a second SQS's whole-second delays leave, and otherwise sends the envelope round again
 * with the remaining delay, so waits longer than 15 minutes are chained.
 */
import { delaySecondsUntil, formatRequeueEnvelope } from '../messages/requeue-envelope.ts';
import type { WorkMessage } from '../messages/work-message.ts';
import type { OutgoingMessage } from './send-messages.ts';

/**
 * The ingress-queue message that delivers `message` to the work queue no earlier than `notBefore`
 * (seen from `now`), forwarded with `deduplicationId` when given: the envelope as its body and
 * `DelaySeconds` = the wait in whole seconds, rounded down, at most 900 (the router holds the
 * fraction, and sends it round again beyond 900).
 */
export function delayedIngressMessage(
  message: Readonly<WorkMessage>,
  notBefore: Date,
  now: Date,
  deduplicationId?: string,
): OutgoingMessage {
  const delaySeconds = delaySecondsUntil(notBefore, now);
  return {
    body: formatRequeueEnvelope(message, notBefore, deduplicationId),
    ...(delaySeconds > 0 ? { delaySeconds } : {}),
  };
}
