/**
 * The FailedPlacement rule: one event per node and scheduler reason, named within the clock hour
 * so that any process asking for it again in that hour asks for the same name.
 */
import { describe, expect, it } from 'vitest';
import { failedPlacementMessage, placementEvents } from '../../lib/core/placement-events.ts';
import type { UnschedulablePod } from '../../lib/core/unschedulable-pods.ts';

const stuck = (node: string, reason: string, pod = `agent-${node}`): UnschedulablePod => ({
  node,
  pod,
  reason,
  message: `0/3 nodes are available: 1 ${reason}. preemption: …`,
});
const at = (iso: string) => new Date(iso);
const HOUR_NANOS = 3_600_000_000_000n;
const hourOf = (nanos: bigint) => nanos / HOUR_NANOS;

describe('placementEvents', () => {
  it('gives one event per node and reason, with upstream wording', () => {
    const events = placementEvents(
      'uid-1',
      [
        stuck('node-a', 'Insufficient memory'),
        stuck('node-a', 'Insufficient memory', 'agent-node-a-2'),
        stuck('node-a', 'Insufficient cpu'),
        stuck('node-b', 'Insufficient memory'),
      ],
      at('2026-03-01T10:15:00Z'),
    );
    expect(events.map((e) => e.message)).toEqual([
      'failed to place pod on "node-a": Insufficient memory',
      'failed to place pod on "node-a": Insufficient cpu',
      'failed to place pod on "node-b": Insufficient memory',
    ]);
    expect(new Set(events.map((e) => e.nanos)).size).toBe(3);
    expect(new Set(events.map((e) => e.scope)).size).toBe(3);
  });

  it('names an event the same throughout a clock hour, and anew in the next', () => {
    const one = [stuck('node-a', 'Insufficient memory')];
    const nanos = (iso: string) => placementEvents('uid-1', one, at(iso))[0]?.nanos;
    const start = nanos('2026-03-01T10:00:00Z');
    expect(nanos('2026-03-01T10:30:00Z')).toBe(start);
    expect(nanos('2026-03-01T10:59:59.999Z')).toBe(start);
    const next = nanos('2026-03-01T11:00:00Z');
    expect(next).not.toBe(start);
    // An instant within the hour it is named for, as client-go's names are times.
    expect(hourOf(start ?? 0n)).toBe(BigInt(Date.parse('2026-03-01T10:00:00Z')) / 3_600_000n);
    expect(hourOf(next ?? 0n)).toBe(BigInt(Date.parse('2026-03-01T11:00:00Z')) / 3_600_000n);
  });

  it('names the events of another DaemonSet, node or reason differently', () => {
    const now = at('2026-03-01T10:00:00Z');
    const nanos = (uid: string, node: string, reason: string) =>
      placementEvents(uid, [stuck(node, reason)], now)[0]?.nanos;
    const names = [
      nanos('uid-1', 'node-a', 'Insufficient memory'),
      nanos('uid-2', 'node-a', 'Insufficient memory'),
      nanos('uid-1', 'node-b', 'Insufficient memory'),
      nanos('uid-1', 'node-a', 'Insufficient cpu'),
    ];
    expect(new Set(names).size).toBe(4);
  });

  it('quotes the node as Go %q does', () => {
    expect(failedPlacementMessage('node-a', 'Insufficient cpu')).toBe(
      'failed to place pod on "node-a": Insufficient cpu',
    );
  });
});
