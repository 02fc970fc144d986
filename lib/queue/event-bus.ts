/**
 * The trigger bus as the publishers see it (docs/design.md, 1. The pipeline): the relay publishes
 * triggers onto it; on AWS it is the EventBridge bus `everynode` (`EventBridgeEventBus`), locally
 * `LocalEventBus`, which journals every trigger and delivers it to the ingress queue. Either way
 * the router receives the EventBridge event JSON a bus rule puts on the ingress queue, built here
 * by {@link eventEnvelopeOf}.
 */
import { randomUUID } from 'node:crypto';
import { jsonBytes } from '../messages/hint-caps.ts';

/** One event to publish: what EventBridge `PutEvents` takes for one entry. */
export interface BusEvent {
  /** `source`, e.g. `everynode.relay`. */
  readonly source: string;
  /** `detail-type`, e.g. `Kubernetes Watch Event`. */
  readonly detailType: string;
  /** The detail, a JSON object. */
  readonly detail: Readonly<Record<string, unknown>>;
  /** When the event happened; the bus's receive time when absent. */
  readonly time?: Date;
  /** ARNs or names the event concerns (EventBridge `resources`). */
  readonly resources?: readonly string[];
}

/** A bus the relay (and the resync command) publishes to. */
export interface EventBus {
  /**
   * Publishes `events` in order; resolves once the bus accepted every one of them, rejects (with
   * an error naming what was refused) otherwise, so the caller never checkpoints past an event
   * the bus did not take.
   */
  publish(events: readonly BusEvent[]): Promise<void>;
}

/** The EventBridge event as a bus rule delivers it to SQS (and as the EventBridge archive replays it). */
export interface EventEnvelope {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: string[];
  readonly detail: Readonly<Record<string, unknown>>;
  readonly 'replay-name'?: string;
}

/** Account placed in local envelopes, where there is no AWS account. */
export const LOCAL_ACCOUNT = '000000000000';
/** Region placed in local envelopes. */
export const LOCAL_REGION = 'local';

/**
 * The envelope EventBridge would build for `event` when receiving it at `now`: a fresh id, the
 * event's time truncated to the second (EventBridge keeps whole seconds), the local account and
 * region.
 */
export function eventEnvelopeOf(event: Readonly<BusEvent>, now: Date = new Date()): EventEnvelope {
  const time = new Date(Math.floor((event.time ?? now).getTime() / 1000) * 1000);
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': event.detailType,
    source: event.source,
    account: LOCAL_ACCOUNT,
    time: time.toISOString().replace('.000Z', 'Z'),
    region: LOCAL_REGION,
    resources: [...(event.resources ?? [])],
    detail: event.detail,
  };
}

/**
 * The largest event the bus takes: the ingress queue receives its envelope as one SQS message
 * (at most 256 KiB, `SEND_MESSAGE_MAX_BYTES` of `send-messages.ts`, not imported here: the relay
 * loads no SQS client), less 1 KiB for the longer account and region of an AWS envelope than of a
 * local one; a PutEvents entry of it is smaller still than PutEvents' 256 KB.
 */
export const MAX_BUS_EVENT_BYTES = 262_144 - 1024;

/** The UTF-8 bytes of the envelope JSON `event` becomes: what the ingress queue is sent of it. */
export function busEventBytes(event: Readonly<BusEvent>): number {
  return jsonBytes(eventEnvelopeOf(event));
}
