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
import { sizeBatches } from './size-batches.ts';

/** The most entries one PutEvents call takes. */
export const PUT_EVENTS_BATCH = 10;

/**
 * 256 KB, the bound on the summed size of one PutEvents call's entries, each counted as
 * {@link entrySize} does; AWS says the total "must be less than" it.
 */
export const PUT_EVENTS_MAX_BYTES = 262_144;

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

/**
 * The size EventBridge counts for `entry` against {@link PUT_EVENTS_MAX_BYTES}, as AWS documents
 * it ("Calculating PutEvents event entry size"): the UTF-8 bytes of Source, DetailType, Detail
 * and of each Resources string, plus 14 bytes when Time is set; EventBusName does not count.
 */
function entrySize(entry: Readonly<PutEventsRequestEntry>): number {
  const strings = [entry.Source, entry.DetailType, entry.Detail, ...(entry.Resources ?? [])];
  const bytes = strings.reduce((sum, text) => sum + Buffer.byteLength(text ?? '', 'utf8'), 0);
  return bytes + (entry.Time ? 14 : 0);
}

/** Refuses, for good, an entry no PutEvents call can take, before anything of its batch is sent. */
function refuseOversized(entries: readonly PutEventsRequestEntry[], eventBusName: string): void {
  for (const entry of entries) {
    const size = entrySize(entry);
    if (size < PUT_EVENTS_MAX_BYTES) continue;
    throw new PutEventsError(
      `publishing a ${entry.Source} ${entry.DetailType} event of ${size} bytes to ${eventBusName}: ` +
        `PutEvents takes less than ${PUT_EVENTS_MAX_BYTES} bytes of entries per call`,
      false,
    );
  }
}

function describe(result: Readonly<PutEventsResultEntry>): string {
  return `${result.ErrorCode ?? 'unknown'}: ${result.ErrorMessage ?? ''}`.trim();
}

/**
 * Publishes through `PutEvents` in order, in batches of at most {@link PUT_EVENTS_BATCH} entries
 * and less than {@link PUT_EVENTS_MAX_BYTES} of them; an event too large for any call rejects
 * with a non-retryable {@link PutEventsError} before its batch is sent. Entries the answer
 * reports as failed with a transient code (throttling, internal failure) are sent again with
 * exponential backoff; a permanent code (validation, authorization) or exhausted retries reject
 * with a {@link PutEventsError} naming the codes, so the relay does not checkpoint past them.
 */
export class EventBridgeEventBus implements EventBus {
  constructor(private readonly options: Readonly<EventBridgeEventBusOptions>) {}

  /** Publishes `events`; resolves once EventBridge accepted every one. */
  async publish(events: readonly BusEvent[]): Promise<void> {
    const entries = events.map((event) => toEntry(event, this.options.eventBusName));
    const batches = sizeBatches(entries, {
      maxCount: PUT_EVENTS_BATCH,
      maxBytes: PUT_EVENTS_MAX_BYTES - 1, // "less than" the bound, as AWS words it
      sizeOf: entrySize,
    });
    for (const batch of batches) {
      refuseOversized(batch, this.options.eventBusName);
      await this.putWithRetries(batch);
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
