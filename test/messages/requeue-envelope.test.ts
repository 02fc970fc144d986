import { describe, expect, it } from 'vitest';
import { daemonSetWindow } from '../../lib/messages/daemon-set-window.ts';
import {
  daemonSetRequeueSlot,
  delaySecondsUntil,
  failuresOf,
  formatRequeueEnvelope,
  NODE_RECOUNT_WINDOW_SECONDS,
  nodeRecountSlot,
  parseRequeueEnvelope,
  rolloutTimerSlot,
  withRequeueCause,
} from '../../lib/messages/requeue-envelope.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { fixtureAt as at, pairWorkMessage as pair } from '../support/pair-work-message.ts';

describe('requeue envelopes', () => {
  it('puts a DaemonSet requeue at the end of its status window, with the router refresh id', () => {
    // u1's status windows are shifted by its offset: one starts here.
    const { window, endsAt } = daemonSetWindow('u1', 10_000, 2000);
    const now = new Date(endsAt - 1500);
    expect(daemonSetRequeueSlot('u1', 1, now)).toEqual({
      afterSeconds: 1.5,
      deduplicationId: `status:u1:${window}`,
    });
    expect(daemonSetRequeueSlot('u1', 0, now)).toEqual({
      afterSeconds: 1.5,
      deduplicationId: `status:u1:${window}`,
    });
    expect(daemonSetRequeueSlot('u1', 2, now)).toEqual({
      afterSeconds: 3.5,
      deduplicationId: `status:u1:${window + 1}`,
    });
  });

  it("puts a safe rollout's timer at the end of its own 250 ms window, not the status window", () => {
    const { window, endsAt } = daemonSetWindow('u1', 10_000, 250);
    const now = new Date(endsAt - 5100);
    // Wanted 5 s from now: 100 ms before that window's end.
    expect(rolloutTimerSlot('u1', 5, now)).toEqual({
      afterSeconds: 5.1,
      deduplicationId: `rollout:u1:${window}`,
    });
    expect(rolloutTimerSlot('u1', 5.05, now).deduplicationId).toBe(`rollout:u1:${window}`);
    expect(rolloutTimerSlot('u1', 5.2, now).deduplicationId).toBe(`rollout:u1:${window + 1}`);
  });

  it("puts a node recount at the end of its DaemonSet's own recount window, one id per window", () => {
    const windowMs = NODE_RECOUNT_WINDOW_SECONDS * 1000;
    const base = 1_800_000_000_000;
    for (const uid of ['u1', 'u2', 'a-much-longer-uid-0f3c']) {
      const first = nodeRecountSlot(uid, new Date(base));
      expect(first.afterSeconds).toBeGreaterThan(0);
      expect(first.afterSeconds).toBeLessThanOrEqual(NODE_RECOUNT_WINDOW_SECONDS);
      expect(first.deduplicationId).toMatch(new RegExp(`^recount:${uid}:`));
      const due = base + first.afterSeconds * 1000;
      // Every moment up to the window's end shares its recount, which runs after all of them.
      const justBefore = nodeRecountSlot(uid, new Date(due - 1));
      expect(justBefore.deduplicationId).toBe(first.deduplicationId);
      expect(due - 1 + justBefore.afterSeconds * 1000).toBe(due);
      // From its end on, the next window.
      const next = nodeRecountSlot(uid, new Date(due));
      expect(next.deduplicationId).not.toBe(first.deduplicationId);
      expect(next.afterSeconds).toBe(NODE_RECOUNT_WINDOW_SECONDS);
    }
    // Many DaemonSets' windows end at different moments, not all at once.
    const ends = new Set(
      Array.from({ length: 20 }, (_, i) => {
        const slot = nodeRecountSlot(`uid-${i}`, new Date(base));
        return Math.round((base + slot.afterSeconds * 1000) % windowMs);
      }),
    );
    expect(ends.size).toBeGreaterThan(15);
  });

  it('round-trips a work message with its due time', () => {
    const body = formatRequeueEnvelope(pair, new Date('2026-01-01T00:10:00Z'));
    const parsed = parseRequeueEnvelope(body);
    expect(parsed.ok && parsed.envelope).toMatchObject({
      kind: 'requeue',
      notBefore: '2026-01-01T00:10:00.000Z',
      message: pair,
    });
  });

  it.each([
    { name: 'a due envelope', notBefore: 0, expected: 0 },
    { name: 'a wait rounded down', notBefore: 1500, expected: 1 },
    { name: 'a wait under a second', notBefore: 999, expected: 0 },
    { name: 'a wait beyond 15 minutes', notBefore: 3600_000, expected: 900 },
  ])('delays $name by $expected s', ({ notBefore, expected }) => {
    expect(delaySecondsUntil(new Date(notBefore), new Date(0))).toBe(expected);
  });

  it('makes the requeued message new work without hints, counting attempts', () => {
    const once = withRequeueCause(pair, 'backoff', new Date(at));
    expect(once).not.toHaveProperty('hints');
    expect(once.cause).toEqual({ type: 'requeue', reason: 'backoff', attempt: 0, requestedAt: at });
    expect(withRequeueCause(once, 'again', new Date(at)).cause).toMatchObject({ attempt: 1 });
    const node: WorkMessage = {
      v: 1,
      kind: 'node',
      cause: { type: 'resync', at },
      node: { name: 'n1' },
      hints: { observedAt: at, node: { name: 'n1', resourceVersion: '1' }, daemonSets: [], pods: [] },
    };
    expect(withRequeueCause(node, 'failed', new Date(at))).not.toHaveProperty('hints');
  });

  it('counts failures in a row apart from attempts: waits neither add to them nor keep them', () => {
    const waited = [1, 2, 3, 4, 5].reduce<WorkMessage>(
      (m) => withRequeueCause(m, 'terminating pod', new Date(at)),
      pair,
    );
    expect(failuresOf(waited)).toBe(0);
    const failedOnce = withRequeueCause(waited, 'failed: 500', new Date(at), true);
    expect(failedOnce.cause).toMatchObject({ attempt: 5, failures: 1 });
    const failedTwice = withRequeueCause(failedOnce, 'failed: 500', new Date(at), true);
    expect(failuresOf(failedTwice)).toBe(2);
    // A step that ran and asked to wait succeeded: the failures in a row start again.
    expect(failuresOf(withRequeueCause(failedTwice, 'terminating pod', new Date(at)))).toBe(0);
  });
});
