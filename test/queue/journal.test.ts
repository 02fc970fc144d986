import { appendFile, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  JOURNAL_ROTATE_BYTES,
  Journal,
  type JournalEntry,
  previousJournalPath,
  readJournal,
} from '../../lib/queue/journal.ts';

async function readAll(path: string, window = {}): Promise<{ entries: JournalEntry[]; bad: number[] }> {
  const entries: JournalEntry[] = [];
  const bad: number[] = [];
  for await (const e of readJournal(path, window, (n) => bad.push(n))) entries.push(e);
  return { entries, bad };
}

describe('journal', () => {
  it('keeps every trigger in order and reads back a time window', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'sub', 'events.jsonl');
    const journal = new Journal(path);
    await Promise.all([
      journal.append([{ n: 1 }, { n: 2 }], new Date('2026-01-01T00:00:00Z')),
      journal.append([{ n: 3 }], new Date('2026-01-01T00:01:00Z')),
      journal.append([{ n: 4 }], new Date('2026-01-01T00:02:00Z')),
    ]);
    const cases = [
      { name: 'everything', window: {}, expected: [1, 2, 3, 4] },
      { name: 'since is inclusive', window: { since: new Date('2026-01-01T00:01:00Z') }, expected: [3, 4] },
      { name: 'until is exclusive', window: { until: new Date('2026-01-01T00:01:00Z') }, expected: [1, 2] },
    ];
    for (const c of cases) {
      const { entries } = await readAll(path, c.window);
      expect(
        entries.map((e) => (e.trigger as { n: number }).n),
        c.name,
      ).toEqual(c.expected);
    }
  });

  it('skips and reports a torn line without losing the lines after it', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'events.jsonl');
    const journal = new Journal(path);
    await journal.append([{ n: 1 }]);
    await appendFile(path, '{"time": "2026-01-0\n');
    await journal.append([{ n: 2 }]);
    const { entries, bad } = await readAll(path);
    expect(entries.map((e) => (e.trigger as { n: number }).n)).toEqual([1, 2]);
    expect(bad).toEqual([2]);
  });

  it('rotates past its bound, keeping one previous file, and reads both back in order', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'journal.jsonl');
    expect(previousJournalPath(path)).toBe(path.replace(/journal\.jsonl$/, 'journal.1.jsonl'));
    expect(JOURNAL_ROTATE_BYTES).toBe(64 * 1024 * 1024);
    const bound = 1_000;
    const journal = new Journal(path, bound);
    const at = new Date('2026-01-01T00:00:00Z');
    // Each line is about 100 bytes: ten to a file, 25 lines rotate twice.
    for (let n = 1; n <= 25; n++) await journal.append([{ n, pad: 'x'.repeat(40) }], at);
    const sizes = [(await stat(path)).size, (await stat(previousJournalPath(path))).size];
    for (const size of sizes) expect(size).toBeLessThanOrEqual(bound);
    const { entries } = await readAll(path);
    const numbers = entries.map((e) => (e.trigger as { n: number }).n);
    // The oldest file went at the second rotation: the rest, in order, the previous file first.
    expect(numbers[numbers.length - 1]).toBe(25);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 26 - numbers.length + i));
    expect(numbers.length).toBeGreaterThan(10);
    expect(numbers.length).toBeLessThan(25);
    // A journal opened on the same file later knows its size: it rotates at the same bound.
    await new Journal(path, bound).append([{ n: 26, pad: 'x'.repeat(900) }], at);
    expect((await stat(path)).size).toBeLessThan(bound);
  });
});
