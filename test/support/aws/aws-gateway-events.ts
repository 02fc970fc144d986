/**
 * EventBridge PutEvents behind the local AWS endpoint: authorized as `events:PutEvents` on the ARN
 * of every bus the entries name (`EventBusName` as a name or an ARN, `default` when absent); an
 * entry whose `Source` starts with `aws.` is refused on its own with NotAuthorizedForSourceException,
 * as EventBridge refuses it to any caller, and the other entries are handed to the harness's bus
 * (LocalEventBridge.putEvents), which checks them and answers each. A request of no entry or more
 * than 10 is a ValidationException; so is anything the bus throws under that name.
 */
import type { PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { AwsPrincipal } from './authorization.ts';
import { type AwsService, AwsServiceError, jsonResponse } from './aws-gateway-protocol.ts';

/** What a bus answers to PutEvents: one result per entry it was given, in order. */
export interface PutEventsResult {
  readonly FailedEntryCount?: number;
  readonly Entries?: ReadonlyArray<PutEventsResultEntry>;
}

/**
 * The harness's bus: takes the entries the gateway let through (`Time` as a Date) with the caller,
 * and answers as PutEvents does; may throw an error named `ValidationException` to refuse them all.
 */
export type PutEventsHandler = (
  entries: readonly PutEventsRequestEntry[],
  principal: AwsPrincipal,
) => Promise<PutEventsResult> | PutEventsResult;

const MAX_ENTRIES = 10;
const RESERVED_SOURCE: PutEventsResultEntry = {
  ErrorCode: 'NotAuthorizedForSourceException',
  ErrorMessage: 'Not authorized for the source.',
};

/** The ARN of the bus `name` (a name or an ARN; `default` when absent). */
function busArnOf(name: unknown, region: string, account: string): string {
  const text = name === undefined || name === '' ? 'default' : String(name);
  return text.startsWith('arn:') ? text : `arn:aws:events:${region}:${account}:event-bus/${text}`;
}

/** The entries of a PutEvents body, `Time` (epoch seconds on the wire) as a Date. */
function entriesOf(input: Readonly<Record<string, unknown>>): PutEventsRequestEntry[] {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
    throw new AwsServiceError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
    );
  }
  return entries.map((raw: Record<string, unknown>) => {
    const { Time, ...rest } = raw;
    return {
      ...rest,
      ...(typeof Time === 'number' ? { Time: new Date(Time * 1000) } : {}),
    } as PutEventsRequestEntry;
  });
}

/** The bus's answer to `entries`, a ValidationException it throws as the service's error. */
async function askBus(
  putEvents: PutEventsHandler,
  entries: readonly PutEventsRequestEntry[],
  principal: AwsPrincipal,
): Promise<ReadonlyArray<PutEventsResultEntry>> {
  if (entries.length === 0) return [];
  try {
    const answer = await putEvents(entries, principal);
    const results = answer.Entries ?? [];
    if (results.length !== entries.length) {
      throw new Error(`the PutEvents handler answered ${results.length} entries for ${entries.length}`);
    }
    return results;
  } catch (error) {
    if (error instanceof Error && error.name === 'ValidationException') {
      throw new AwsServiceError('ValidationException', error.message);
    }
    throw error;
  }
}

/** The EventBridge service of the gateway, handing entries to `putEvents`. */
export function eventsService(account: string, putEvents: PutEventsHandler | undefined): AwsService {
  return {
    protocol: 'json-1.1',
    supports: (operation) => operation === 'PutEvents' && putEvents !== undefined,
    requirements(call) {
      const buses = new Set(
        entriesOf(call.input).map((entry) => busArnOf(entry.EventBusName, call.region, account)),
      );
      return [...buses].map((resource) => ({ action: 'events:PutEvents', resource }));
    },
    async handle(call) {
      if (!putEvents) throw new Error('no PutEvents handler');
      const entries = entriesOf(call.input);
      const reserved = entries.map((entry) => entry.Source?.startsWith('aws.') === true);
      const answers = await askBus(
        putEvents,
        entries.filter((_, i) => !reserved[i]),
        call.principal,
      );
      let next = 0;
      const all = entries.map((_, i) => (reserved[i] ? RESERVED_SOURCE : (answers[next++] ?? {})));
      const failed = all.filter((result) => result.ErrorCode).length;
      return jsonResponse('json-1.1', { FailedEntryCount: failed, Entries: all });
    },
  };
}
