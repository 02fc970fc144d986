/**
 * The local pipeline's replayable event history: every trigger appended as one JSON line with the
 * time it was recorded, the local counterpart of the EventBridge archive on AWS. Bounded: a file
 * rotates when an append would take it past {@link JOURNAL_ROTATE_BYTES}, into its one previous
 * file ({@link previousJournalPath}, replacing the one before), so a journal takes at most twice
 * that (and one append) on disk, and a replay reads both, the previous first.
 */
import { appendFileSync, createReadStream, mkdirSync, renameSync, statSync } from 'node:fs';
import { access } from 'node:fs/promises';
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

/** The size past which a journal file rotates: 64 MiB. */
export const JOURNAL_ROTATE_BYTES = 64 * 1024 * 1024;

/** The size of the file at `path`; 0 when there is none. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Where the journal at `path` keeps its previous file: `journal.jsonl` → `journal.1.jsonl`. */
export function previousJournalPath(path: string): string {
  return path.endsWith('.jsonl') ? `${path.slice(0, -'.jsonl'.length)}.1.jsonl` : `${path}.1`;
}

/**
 * Appends triggers to a JSONL file; each append is one synchronous write, so lines never
 * interleave. An append that would take the file past `maxBytes` first moves it to
 * {@link previousJournalPath}.
 */
export class Journal {
  /** The file's size as this journal last knew it; undefined until the first append. */
  private size: number | undefined;

  constructor(
    readonly path: string,
    private readonly maxBytes: number = JOURNAL_ROTATE_BYTES,
  ) {}

  /**
   * Records `triggers` at `now`; resolves once they are written (to the page cache: what an append
   * ever promised). The write is synchronous on purpose: an asynchronous append costs an event-loop
   * turn for each of its file operations (open, write, close), and in the local pipeline, whose one
   * thread also runs the reconciler, each turn waits for the task running; appends of one line
   * took 0.24–0.58 s there and held the triggers behind them. A synchronous append of a few kilobytes
   * takes tens of microseconds.
   */
  async append(triggers: readonly unknown[], now: Date = new Date()): Promise<void> {
    if (triggers.length === 0) return;
    const lines = triggers
      .map((trigger) => `${JSON.stringify({ time: now.toISOString(), trigger })}\n`)
      .join('');
    const bytes = Buffer.byteLength(lines, 'utf8');
    mkdirSync(dirname(this.path), { recursive: true });
    let size = this.size ?? sizeOf(this.path);
    if (size > 0 && size + bytes > this.maxBytes) {
      renameSync(this.path, previousJournalPath(this.path));
      size = 0;
    }
    appendFileSync(this.path, lines);
    this.size = size + bytes;
  }
}

/**
 * Reads the entries of a journal recorded within `window` (since inclusive, until exclusive), in
 * order: its previous file's (when it has one), then its own. A line that is not a journal entry
 * (a torn last line after a crash) is reported through `onBadLine`, numbered over both files, and
 * skipped, so one bad line never hides the rest of the history.
 */
export async function* readJournal(
  path: string,
  window: Readonly<JournalWindow> = {},
  onBadLine: (lineNumber: number, reason: string) => void = () => undefined,
): AsyncGenerator<JournalEntry> {
  const previous = previousJournalPath(path);
  const hasPrevious = await access(previous).then(
    () => true,
    () => false,
  );
  const at = { lineNumber: 0 };
  if (hasPrevious) yield* readJournalFile(previous, window, onBadLine, at);
  yield* readJournalFile(path, window, onBadLine, at);
}

async function* readJournalFile(
  path: string,
  window: Readonly<JournalWindow>,
  onBadLine: (lineNumber: number, reason: string) => void,
  counter: { lineNumber: number },
): AsyncGenerator<JournalEntry> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    counter.lineNumber++;
    const lineNumber = counter.lineNumber;
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
