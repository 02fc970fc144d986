/**
 * The local pipeline's replayable event history: every trigger appended as one JSON line with the
 * time it was recorded, the local counterpart of the EventBridge archive on AWS.
 */
import { createReadStream } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

/** One journal line: when the trigger was recorded and the trigger itself. */
export interface JournalEntry {
  readonly time: string;
  readonly trigger: unknown;
}

/** A time window; either end may be open. */
export interface JournalWindow {
  readonly since?: Date;
  readonly until?: Date;
}

/** Appends triggers to a JSONL file; appends are serialized so lines never interleave. */
export class Journal {
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** Records `triggers` at `now`; resolves once they are on disk. */
  append(triggers: readonly unknown[], now: Date = new Date()): Promise<void> {
    if (triggers.length === 0) return this.tail;
    const lines = triggers
      .map((trigger) => `${JSON.stringify({ time: now.toISOString(), trigger })}\n`)
      .join('');
    this.tail = this.tail.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await appendFile(this.path, lines);
    });
    return this.tail;
  }
}

/**
 * Reads the entries of a journal recorded within `window` (since inclusive, until exclusive), in
 * order. A line that is not a journal entry (a torn last line after a crash) is reported through
 * `onBadLine` and skipped, so one bad line never hides the rest of the history.
 */
export async function* readJournal(
  path: string,
  window: Readonly<JournalWindow> = {},
  onBadLine: (lineNumber: number, reason: string) => void = () => undefined,
): AsyncGenerator<JournalEntry> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const entry = parseEntry(line);
    if (typeof entry === 'string') {
      onBadLine(lineNumber, entry);
      continue;
    }
    const at = Date.parse(entry.time);
    if (window.since && at < window.since.getTime()) continue;
    if (window.until && at >= window.until.getTime()) continue;
    yield entry;
  }
}

function parseEntry(line: string): JournalEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== 'object' || value === null) return 'not an object';
  const { time, trigger } = value as { time?: unknown; trigger?: unknown };
  if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) return 'no valid "time"';
  if (trigger === undefined) return 'no "trigger"';
  return { time, trigger };
}
