/**
 * The local trigger bus of `everynode run`: what the EventBridge bus, its archive and its rule to the
 * ingress queue do on AWS, in one process.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type BusEvent, type EventBus, type EventEnvelope, eventEnvelopeOf } from './event-bus.ts';
import type { Journal } from './journal.ts';
import { sendMessages } from './send-messages.ts';

/** SendMessageBatch calls in flight at once while delivering. */
export const DELIVERY_CONCURRENCY = 8;

/** Where the local bus archives and delivers. */
export interface LocalEventBusOptions {
  readonly sqs: SQSClient;
  /** The ingress queue (the bus rule's target on AWS). */
  readonly ingressUrl: string;
  /** The archive: every published event is appended before it is delivered. */
  readonly journal: Journal;
  readonly clock?: () => Date;
}

/**
 * Journals every event (the archive, so `everynode replay` can re-inject any window) and then
 * delivers it to the ingress queue as the EventBridge event JSON a bus rule sends to SQS.
 * Journalling first means an event the queue refused is still in the history; a replay re-sends it.
 */
export class LocalEventBus implements EventBus {
  private count = 0;

  constructor(private readonly options: Readonly<LocalEventBusOptions>) {}

  /** Events delivered to the ingress queue since the bus was created. */
  get published(): number {
    return this.count;
  }

  /** Journals, then delivers, `events`; resolves once the ingress queue accepted all of them. */
  async publish(events: readonly BusEvent[]): Promise<void> {
    if (events.length === 0) return;
    const now = this.options.clock?.() ?? new Date();
    const envelopes = events.map((event) => eventEnvelopeOf(event, now));
    await this.options.journal.append(envelopes, now);
    await this.deliver(envelopes);
  }

  /**
   * Delivers already-built envelopes (a replay) to the ingress queue without journalling them
   * again, {@link DELIVERY_CONCURRENCY} SendMessageBatch calls at a time: the ingress queue is a
   * standard queue, which keeps no order anyway (the router and the work queue's de-duplication do
   * not rely on one).
   */
  async deliver(envelopes: readonly EventEnvelope[]): Promise<void> {
    const bodies = envelopes.map((envelope) => ({ body: JSON.stringify(envelope) }));
    const chunks: (typeof bodies)[] = [];
    for (let i = 0; i < bodies.length; i += 10) chunks.push(bodies.slice(i, i + 10));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < chunks.length) {
        const chunk = chunks[next++] ?? [];
        await sendMessages(this.options.sqs, this.options.ingressUrl, chunk);
        this.count += chunk.length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELIVERY_CONCURRENCY, chunks.length) }, worker));
  }
}
