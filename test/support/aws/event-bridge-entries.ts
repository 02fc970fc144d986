/**
 * The request and answer of EventBridge `PutEvents` as the local EventBridge (event-bridge.ts) takes
 * and gives them: the checks the API makes on the whole request (1 to 10 entries, at most 256 KB)
 * and on each entry (Source, DetailType and Detail required; Detail a JSON object; `aws.*` sources
 * reserved to AWS services), and the answer with `FailedEntryCount` and one result per entry.
 */

/** One `PutEvents` entry (`Time` as the SDK gives a Date, or as the wire gives epoch seconds). */
export interface PutEventsEntry {
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly Resources?: readonly string[];
  readonly EventBusName?: string;
  readonly Time?: Date | number | string;
  readonly TraceHeader?: string;
}

/** The `PutEvents` answer. */
export interface PutEventsAnswer {
  readonly FailedEntryCount: number;
  readonly Entries: ReadonlyArray<{ EventId?: string; ErrorCode?: string; ErrorMessage?: string }>;
}

/** A `PutEvents` request refused whole (AWS's `ValidationException`). */
export class PutEventsValidationError extends Error {
  override readonly name = 'ValidationException';
}

/** An entry that passed the checks, or why it failed. */
export type EntryReading =
  | {
      readonly ok: true;
      readonly entry: PutEventsEntry & { readonly Source: string; readonly DetailType: string };
      readonly detail: Readonly<Record<string, unknown>>;
      readonly time?: Date;
    }
  | EntryFailure;

/** A failed entry's `ErrorCode` and `ErrorMessage`. */
export interface EntryFailure {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
}

const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256 * 1024;

/** An entry's size as "Calculating PutEvents event entry size" counts it. */
function entrySize(entry: Readonly<PutEventsEntry>): number {
  const strings = [entry.Source, entry.DetailType, entry.Detail, ...(entry.Resources ?? [])];
  const bytes = strings.reduce((sum, s) => sum + (s === undefined ? 0 : Buffer.byteLength(s, 'utf8')), 0);
  return bytes + (entry.Time === undefined ? 0 : 14);
}

/** Throws {@link PutEventsValidationError} for a request the API refuses whole. */
export function checkPutEventsRequest(entries: readonly PutEventsEntry[]): void {
  if (entries.length < 1 || entries.length > MAX_ENTRIES) {
    throw new PutEventsValidationError(
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
    );
  }
  const size = entries.reduce((sum, entry) => sum + entrySize(entry), 0);
  if (size > MAX_REQUEST_BYTES) {
    throw new PutEventsValidationError('Total size of the entries in the request is over the limit.');
  }
}

function invalid(parameter: string, reason: string): EntryFailure {
  return {
    ok: false,
    code: 'InvalidArgument',
    message: `Parameter ${parameter} is not valid. Reason: ${reason}`,
  };
}

function timeOf(time: PutEventsEntry['Time']): Date | undefined {
  if (time === undefined) return undefined;
  if (time instanceof Date) return time;
  return typeof time === 'number' ? new Date(time * 1000) : new Date(time);
}

/** Checks one entry as `PutEvents` does. */
export function readPutEventsEntry(entry: Readonly<PutEventsEntry>): EntryReading {
  const { Source, DetailType, Detail } = entry;
  if (!Source) return invalid('Source', 'Source is a required argument.');
  if (!DetailType) return invalid('DetailType', 'DetailType is a required argument.');
  if (Detail === undefined || Detail === '') return invalid('Detail', 'Detail is a required argument.');
  let detail: unknown;
  try {
    detail = JSON.parse(Detail);
  } catch {
    return { ok: false, code: 'MalformedDetail', message: 'Detail is malformed.' };
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
    return { ok: false, code: 'MalformedDetail', message: 'Detail is malformed.' };
  }
  if (Source.startsWith('aws.')) {
    return { ok: false, code: 'NotAuthorizedForSourceException', message: 'Not authorized for the source.' };
  }
  const time = timeOf(entry.Time);
  if (time && Number.isNaN(time.getTime())) return invalid('Time', 'Time is not a valid timestamp.');
  return {
    ok: true,
    entry: { ...entry, Source, DetailType },
    detail: detail as Record<string, unknown>,
    ...(time ? { time } : {}),
  };
}

/** The answer for per-entry results in request order. */
export function toPutEventsAnswer(
  results: ReadonlyArray<{ readonly ok: true; readonly eventId: string } | EntryFailure>,
): PutEventsAnswer {
  return {
    FailedEntryCount: results.filter((r) => !r.ok).length,
    Entries: results.map((r) =>
      r.ok ? { EventId: r.eventId } : { ErrorCode: r.code, ErrorMessage: r.message },
    ),
  };
}
