/**
 * Delayed work in the router (pipeline design 2; the envelope is `requeue-envelope.ts`'s): work
 * that must wait — a requeue of the reconciler (backoff, a terminating pod, minReadySeconds, a 429's
 * Retry-After), or a coalesced status refresh — travels through the INGRESS queue (standard,
 * per-message DelaySeconds up to 900 s). The router forwards the work message to the FIFO work queue
 * once `notBefore` has passed — waiting out in-process the fraction of a second SQS's whole-second
 * delays leave — and otherwise sends the envelope round again with the remaining delay, so waits
 * longer than 15 minutes are chained.
 */
import * as z from 'zod';
import { type ParseResult, parseJsonObject } from '../messages/parse-json-object.ts';
import type { WorkMessage } from '../messages/work-message.ts';
import type { OutgoingMessage } from '../queue/send-messages.ts';
import { delaySecondsUntil, requeueEnvelopeSchema } from './requeue-envelope.ts';

/**
 * The requeue envelope as the router reads and writes it: the reconciler's envelope plus an optional
 * FIFO de-duplication id to forward with instead of the message's own (the status refreshes of one
 * coalescing window share one). The reconciler's parser strips the field; nothing else reads it.
 */
export const routedEnvelopeSchema = requeueEnvelopeSchema.extend({
  deduplicationId: z.string().min(1).max(128).optional(),
});

/** A requeue envelope, with the router's optional de-duplication id. */
export type RoutedEnvelope = z.infer<typeof routedEnvelopeSchema>;

/**
 * The ingress-queue message that delivers `message` to the work queue no earlier than `notBefore`
 * (seen from `now`): the envelope as its body and `DelaySeconds` = the wait in whole seconds, rounded
 * down, at most 900 (the router holds the fraction, and sends it round again beyond 900).
 */
export function requeueMessage(
  message: Readonly<WorkMessage>,
  notBefore: Date,
  now: Date,
  deduplicationId?: string,
): OutgoingMessage {
  const envelope = routedEnvelopeSchema.parse({
    v: 1,
    kind: 'requeue',
    notBefore: notBefore.toISOString(),
    message,
    ...(deduplicationId ? { deduplicationId } : {}),
  });
  const delaySeconds = delaySecondsUntil(notBefore, now);
  return { body: JSON.stringify(envelope), ...(delaySeconds > 0 ? { delaySeconds } : {}) };
}

/** True when the ingress body `json` is a requeue envelope rather than an EventBridge event. */
export function isRequeueBody(json: Readonly<Record<string, unknown>>): boolean {
  return json.kind === 'requeue';
}

/** The envelope in `body`, with its de-duplication id, or why it is none. */
export function parseRoutedEnvelope(body: string): ParseResult<'envelope', RoutedEnvelope> {
  const json = parseJsonObject(body);
  if (!json.ok) return json;
  const parsed = routedEnvelopeSchema.safeParse(json.value);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `invalid requeue envelope: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    };
  }
  return { ok: true, envelope: parsed.data };
}
