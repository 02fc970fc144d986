/**
 * The trigger bus on AWS: EventBridge `PutEvents` onto the `everynode` bus, whose archive keeps
 * every trigger for `StartReplay` and whose rule delivers them to the ingress queue.
 */
import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { EverynodeError } from '../errors/everynode-error.ts';
import type { BusEvent, EventBus } from './event-bus.ts';

/** The most entries one PutEvents call takes. */
export const PUT_EVENTS_BATCH = 10;

/** EventBridge refused some events for good, or kept failing them after the retries. */
export class PutEventsError extends EverynodeError {
  constructor(message: string, retryable: boolean, options: { cause?: unknown } = {}) {
    super(message, retryable, options);
  }
}

/** Options of {@link EventBridgeEventBus}. */
export interface EventBridgeEventBusOptions {
  readonly client: EventBridgeClient;
  /** Name or ARN of the bus. */
  readonly eventBusName: string;
  /** Attempts per entry, counting the first (default 4). */
  readonly maxAttempts?: number;
  /** First retry delay in ms, doubled on each retry (default 100). */
  readonly retryDelayMs?: number;
}

// Per-entry error codes worth retrying: EventBridge's own transient failures and throttling.
const retryableCode = /Throttl|InternalFailure|InternalException|ServiceUnavailable|LimitExceeded/i;

function toEntry(event: Readonly<BusEvent>, eventBusName: string): PutEventsRequestEntry {
  return {
    EventBusName: eventBusName,
    Source: event.source,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    ...(event.time ? { Time: event.time } : {}),
    ...(event.resources && event.resources.length > 0 ? { Resources: [...event.resources] } : {}),
  };
}

function describe(result: Readonly<PutEventsResultEntry>): string {
  return `${result.ErrorCode ?? 'unknown'}: ${result.ErrorMessage ?? ''}`.trim();
}

/**
 * Publishes through `PutEvents` in batches of {@link PUT_EVENTS_BATCH}, in order. Entries the answer
 * reports as failed with a transient code (throttling, internal failure) are sent again with
 * exponential backoff; a permanent code (validation, authorization) or exhausted retries reject
 * with a {@link PutEventsError} naming the codes, so the relay does not checkpoint past them.
 */
export class EventBridgeEventBus implements EventBus {
  constructor(private readonly options: Readonly<EventBridgeEventBusOptions>) {}

  /** Publishes `events`; resolves once EventBridge accepted every one. */
  async publish(events: readonly BusEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += PUT_EVENTS_BATCH) {
      const batch = events.slice(start, start + PUT_EVENTS_BATCH);
      await this.putWithRetries(batch.map((event) => toEntry(event, this.options.eventBusName)));
    }
  }

  private async putWithRetries(entries: PutEventsRequestEntry[]): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 4;
    let pending = entries;
    for (let attempt = 1; ; attempt++) {
      const failed = await this.putOnce(pending);
      if (failed.length === 0) return;
      const permanent = failed.filter(([, result]) => !retryableCode.test(result.ErrorCode ?? ''));
      if (permanent.length > 0 || attempt >= maxAttempts) {
        const codes = failed.map(([, result]) => describe(result)).join('; ');
        const which = `${failed.length} of ${pending.length} event(s)`;
        throw new PutEventsError(
          `publishing ${which} to ${this.options.eventBusName}: ${codes}`,
          permanent.length === 0,
        );
      }
      pending = failed.map(([entry]) => entry);
      const delay = (this.options.retryDelayMs ?? 100) * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Sends one batch; returns the entries EventBridge reported as failed, with their results. */
  private async putOnce(
    entries: PutEventsRequestEntry[],
  ): Promise<Array<[PutEventsRequestEntry, PutEventsResultEntry]>> {
    let answer: PutEventsCommandOutput;
    try {
      answer = await this.options.client.send(new PutEventsCommand({ Entries: entries }));
    } catch (error) {
      throw new PutEventsError(
        `publishing ${entries.length} event(s) to ${this.options.eventBusName}`,
        true,
        {
          cause: error,
        },
      );
    }
    if (!answer.FailedEntryCount) return [];
    const results = answer.Entries ?? [];
    return entries.flatMap((entry, i): Array<[PutEventsRequestEntry, PutEventsResultEntry]> => {
      const result = results[i];
      return result?.ErrorCode ? [[entry, result]] : [];
    });
  }
}
