/**
 * Replay from the local journal (the local counterpart of EventBridge `StartReplay` on the archive):
 * the triggers recorded in a time window are delivered to the ingress queue again, each marked with
 * the replay's name as EventBridge marks replayed events (`replay-name`), so the router gives their
 * work a `replay` cause: new work to the FIFO de-duplication, the same path as the original.
 */
import type { EventEnvelope } from '../queue/event-bus.ts';
import { type JournalWindow, readJournal } from '../queue/journal.ts';

/** Options of {@link replayJournal}. */
export interface ReplayOptions {
  readonly journalPath: string;
  readonly window?: JournalWindow;
  /** The replay's name (EventBridge allows `[.\-_A-Za-z0-9]+`, up to 64 characters). */
  readonly replayName: string;
  /** Delivers a batch of envelopes to the ingress queue (not to the journal: a replay is not new history). */
  readonly deliver: (envelopes: readonly EventEnvelope[]) => Promise<void>;
  /** Called for each journal line that is not an entry (a torn last line), which is skipped. */
  readonly onBadLine?: (lineNumber: number, reason: string) => void;
}

/** What a replay did. */
export interface ReplayResult {
  readonly replayed: number;
  /** Entries whose trigger was not an EventBridge event, skipped. */
  readonly skipped: number;
}

function isEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return typeof e.id === 'string' && typeof e['detail-type'] === 'string' && typeof e.source === 'string';
}

/** Re-delivers the journal's triggers of `window` in order, in batches of 100; resolves with the counts. */
export async function replayJournal(options: Readonly<ReplayOptions>): Promise<ReplayResult> {
  let replayed = 0;
  let skipped = 0;
  let batch: EventEnvelope[] = [];
  for await (const entry of readJournal(options.journalPath, options.window ?? {}, options.onBadLine)) {
    if (!isEnvelope(entry.trigger)) {
      skipped++;
      continue;
    }
    batch.push({ ...entry.trigger, 'replay-name': options.replayName });
    if (batch.length >= 100) {
      await options.deliver(batch);
      replayed += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await options.deliver(batch);
  return { replayed: replayed + batch.length, skipped };
}

/** A replay name for a local replay started at `now`: `local-replay-<epoch ms>`. */
export function localReplayName(now: Date): string {
  return `local-replay-${now.getTime()}`;
}
