import { describe, expect, it } from 'vitest';
import { statusWindowOf } from '../../lib/pipeline/status-window.ts';

describe('statusWindowOf', () => {
  it('gives every instant of a window the same number and end, 2 s long', () => {
    const first = statusWindowOf('uid-a', 1_000_000, 2);
    expect(first.endsAt).toBeGreaterThan(1_000_000);
    expect(first.endsAt - 1_000_000).toBeLessThanOrEqual(2000);
    expect(statusWindowOf('uid-a', first.endsAt - 1, 2)).toEqual(first);
    expect(statusWindowOf('uid-a', first.endsAt, 2)).toEqual({
      index: first.index + 1,
      endsAt: first.endsAt + 2000,
    });
  });

  it('shifts the windows of different DaemonSets, so their refreshes spread out', () => {
    const ends = new Set(
      Array.from({ length: 10 }, (_, i) => statusWindowOf(`uid-${i}`, 1_000_000, 2).endsAt % 2000),
    );
    expect(ends.size).toBeGreaterThan(5);
  });
});
