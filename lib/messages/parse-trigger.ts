/**
 * Reading a trigger off the ingress queue, and the cause its work messages carry.
 */
import * as z from 'zod';
import type { MessageCause } from './message-cause.ts';
import { type ParseResult, parseJsonObject } from './parse-json-object.ts';
import {
  EC2_SOURCE,
  EC2_STATE_CHANGE_DETAIL_TYPE,
  ec2StateChangeDetailSchema,
  eventBridgeEnvelopeSchema,
  RESYNC_DETAIL_TYPE,
  resyncDetailSchema,
  SCHEDULED_EVENT_DETAIL_TYPE,
  SCHEDULED_EVENT_SOURCE,
  type Trigger,
  WATCH_DETAIL_TYPE,
  watchEventDetailSchema,
} from './trigger.ts';

type Envelope = z.infer<typeof eventBridgeEnvelopeSchema>;

function problem(what: string, error: z.ZodError): { ok: false; reason: string } {
  return { ok: false, reason: `invalid ${what}: ${z.prettifyError(error).replaceAll('\n', ' ')}` };
}

function base(envelope: Envelope) {
  const replay = envelope['replay-name'];
  return {
    eventId: envelope.id,
    time: envelope.time,
    ...(replay === undefined ? {} : { replayName: replay }),
  };
}

function triggerOf(envelope: Envelope): ParseResult<'trigger', Trigger> {
  const type = envelope['detail-type'];
  if (type === WATCH_DETAIL_TYPE) {
    const detail = watchEventDetailSchema.safeParse(envelope.detail);
    if (!detail.success) return problem('watch event detail', detail.error);
    return { ok: true, trigger: { type: 'watch', ...base(envelope), watch: detail.data } };
  }
  if (envelope.source === EC2_SOURCE && type === EC2_STATE_CHANGE_DETAIL_TYPE) {
    const detail = ec2StateChangeDetailSchema.safeParse(envelope.detail);
    if (!detail.success) return problem('EC2 state-change detail', detail.error);
    const { 'instance-id': instanceId, state } = detail.data;
    return { ok: true, trigger: { type: 'ec2', ...base(envelope), instanceId, state } };
  }
  const scheduled = envelope.source === SCHEDULED_EVENT_SOURCE && type === SCHEDULED_EVENT_DETAIL_TYPE;
  if (type === RESYNC_DETAIL_TYPE || scheduled) {
    const detail = resyncDetailSchema.safeParse(scheduled ? {} : envelope.detail);
    if (!detail.success) return problem('resync detail', detail.error);
    return { ok: true, trigger: { type: 'resync', ...base(envelope), ...detail.data } };
  }
  return { ok: false, reason: `unknown trigger: source ${envelope.source}, detail-type ${type}` };
}

/**
 * The trigger in the ingress-queue body `body` (an EventBridge event as a bus rule delivers it to
 * SQS), or the reason it is none: not a JSON object, not an EventBridge event, an unknown
 * source/detail-type, or a detail that does not match its schema.
 */
export function parseTrigger(body: string): ParseResult<'trigger', Trigger> {
  const json = parseJsonObject(body);
  return json.ok ? triggerFromJson(json.value) : json;
}

/** The trigger the parsed ingress body `json` holds, or why it holds none (as {@link parseTrigger}). */
export function triggerFromJson(json: Readonly<Record<string, unknown>>): ParseResult<'trigger', Trigger> {
  const envelope = eventBridgeEnvelopeSchema.safeParse(json);
  if (!envelope.success) return problem('EventBridge event', envelope.error);
  return triggerOf(envelope.data);
}

/**
 * The cause the work messages made from `trigger` carry: `replay` for a trigger replayed from the
 * archive (so replays are never de-duplicated against the original), else the watch event (with
 * the relay timer that sent it, if one did), the EC2 event or the resync tick.
 */
export function causeOfTrigger(trigger: Readonly<Trigger>): MessageCause {
  if (trigger.replayName !== undefined) {
    return { type: 'replay', replayName: trigger.replayName, eventId: trigger.eventId };
  }
  switch (trigger.type) {
    case 'watch': {
      const { event, kind, resourceVersion, timer } = trigger.watch;
      return { type: 'watch', event, kind, resourceVersion, ...(timer ? { timer } : {}) };
    }
    case 'ec2':
      return { type: 'ec2', eventId: trigger.eventId, instanceId: trigger.instanceId, state: trigger.state };
    case 'resync':
      return { type: 'resync', at: trigger.time, eventId: trigger.eventId };
  }
}
