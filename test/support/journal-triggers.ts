/**
 * What a relay published, read back from its local journal, and a poll until a reading holds:
 * shared by the relay tests that watch their triggers arrive.
 */

import type { WatchEventDetail } from '../../lib/messages/trigger.ts';
import { readJournal } from '../../lib/queue/journal.ts';

/** One journaled trigger: when it was journaled, its whole text, detail-type and detail. */
export interface JournaledTrigger {
  readonly time: number;
  readonly body: string;
  readonly detailType: string;
  readonly detail: WatchEventDetail;
}

/** Every trigger in the journal at `path`, in order; none while there is no journal yet. */
export async function journaledTriggers(path: string): Promise<JournaledTrigger[]> {
  const seen: JournaledTrigger[] = [];
  try {
    for await (const entry of readJournal(path)) {
      const e = entry.trigger as { 'detail-type': string; detail: WatchEventDetail };
      seen.push({
        time: Date.parse(entry.time),
        body: JSON.stringify(e),
        detailType: e['detail-type'],
        detail: e.detail,
      });
    }
  } catch {
    // No journal yet: nothing published.
  }
  return seen;
}

/** Reads until `done` holds (resolving to that reading); throws with the last one after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out; last seen: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The Pod triggers among `triggers`, in order, and the details of one pod's among them. */
export function podTriggers(triggers: readonly JournaledTrigger[]): {
  readonly seen: JournaledTrigger[];
  ofPod(name: string): WatchEventDetail[];
} {
  const seen = triggers.filter((s) => s.detail.kind === 'Pod');
  return { seen, ofPod: (name) => seen.filter((s) => s.detail.name === name).map((s) => s.detail) };
}
