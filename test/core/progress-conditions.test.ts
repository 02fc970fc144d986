import type { V1DaemonSet, V1DaemonSetCondition, V1DaemonSetStatus } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusChanged } from '../../lib/core/daemon-set-status.ts';
import { progressConditions, secondsUntilProgressDeadline } from '../../lib/core/progress-conditions.ts';
import { aDaemonSet } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);
const LONG_AGO = secondsAgo(7200);

/** A counted status: `desired` nodes, of which `current` have a pod, `updated` of the current revision, `available`. */
function counts(
  desired: number,
  current: number,
  updated: number,
  available: number,
  generation = 1,
): V1DaemonSetStatus {
  return {
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: 0,
    numberReady: available,
    numberAvailable: available,
    updatedNumberScheduled: updated,
    numberUnavailable: desired - available,
    observedGeneration: generation,
  };
}

interface Setup {
  deadline?: number;
  paused?: boolean;
  onDelete?: boolean;
  generation?: number;
  /** The stored status (counts and conditions) the new one is computed over. */
  stored?: V1DaemonSetStatus;
}

function daemonSet(setup: Setup): V1DaemonSet {
  const annotations: Record<string, string> = {};
  if (setup.deadline !== undefined)
    annotations['everynode.dev/progress-deadline-seconds'] = String(setup.deadline);
  if (setup.paused) annotations['everynode.dev/paused'] = 'true';
  const ds = aDaemonSet('agent', {
    annotations,
    generation: setup.generation ?? 1,
    ...(setup.onDelete ? { updateStrategy: { type: 'OnDelete' } } : {}),
  });
  if (setup.stored) ds.status = setup.stored;
  return ds;
}

const progressing = (status: string, reason: string, since: Date): V1DaemonSetCondition => ({
  type: 'Progressing',
  status,
  reason,
  lastTransitionTime: since,
});
const available = (status: string, reason: string, since: Date): V1DaemonSetCondition => ({
  type: 'Available',
  status,
  reason,
  lastTransitionTime: since,
});
const stored = (status: V1DaemonSetStatus, ...conditions: V1DaemonSetCondition[]) => ({
  ...status,
  conditions,
});

/** [type, status, reason, lastTransitionTime] of the condition of `type`. */
function summary(conditions: readonly V1DaemonSetCondition[], type: string) {
  const c = conditions.find((x) => x.type === type);
  return c && [c.status, c.reason, c.lastTransitionTime];
}

describe('progressConditions', () => {
  it.each([
    // Without progressDeadlineSeconds: both conditions on every DaemonSet.
    {
      name: 'a new DaemonSet with no pod yet',
      setup: {},
      next: counts(3, 0, 0, 0),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['False', 'DaemonPodsUnavailable', NOW],
    },
    {
      name: 'every node runs an available current pod',
      setup: { stored: stored(counts(3, 3, 3, 2), progressing('True', 'DaemonSetUpdated', LONG_AGO)) },
      next: counts(3, 3, 3, 3),
      progressing: ['True', 'NewRevisionAvailable', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'no node should run the daemon',
      setup: {},
      next: counts(0, 0, 0, 0),
      progressing: ['True', 'NewRevisionAvailable', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'within maxUnavailable is still unavailable: a node lacks its daemon',
      setup: { stored: stored(counts(3, 3, 3, 3), available('True', 'DaemonPodsAvailable', LONG_AGO)) },
      next: counts(3, 3, 3, 2),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['False', 'DaemonPodsUnavailable', NOW],
    },
    {
      name: 'an image change rolling: available pods of any revision count',
      setup: {
        generation: 2,
        stored: stored(
          counts(3, 3, 3, 3),
          progressing('True', 'NewRevisionAvailable', LONG_AGO),
          available('True', 'DaemonPodsAvailable', LONG_AGO),
        ),
      },
      next: counts(3, 3, 1, 3, 2),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['True', 'DaemonPodsAvailable', LONG_AGO],
    },
    {
      name: 'progress without a deadline keeps lastTransitionTime',
      setup: { stored: stored(counts(3, 3, 1, 3), progressing('True', 'DaemonSetUpdated', LONG_AGO)) },
      next: counts(3, 3, 2, 3),
      progressing: ['True', 'DaemonSetUpdated', LONG_AGO],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'no progress for hours without a deadline never times out',
      setup: { stored: stored(counts(3, 3, 1, 3), progressing('True', 'DaemonSetUpdated', LONG_AGO)) },
      next: counts(3, 3, 1, 3),
      progressing: ['True', 'DaemonSetUpdated', LONG_AGO],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'a status counted for an older generation is not complete',
      setup: { generation: 2 },
      next: counts(3, 3, 3, 3, 1),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'paused and incomplete',
      setup: {
        paused: true,
        stored: stored(counts(3, 3, 1, 3), progressing('True', 'DaemonSetUpdated', LONG_AGO)),
      },
      next: counts(3, 3, 1, 3),
      progressing: ['Unknown', 'DaemonSetPaused', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'paused and complete',
      setup: { paused: true },
      next: counts(3, 3, 3, 3),
      progressing: ['True', 'NewRevisionAvailable', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'paused means nothing to OnDelete',
      setup: { paused: true, onDelete: true },
      next: counts(3, 3, 1, 3),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    // With progressDeadlineSeconds (600): Deployment's syncRolloutStatus.
    {
      name: 'deadline: first look at an incomplete rollout',
      setup: { deadline: 600 },
      next: counts(3, 3, 2, 3),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'deadline: no progress within the deadline keeps the condition',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 2, 3), progressing('True', 'DaemonSetUpdated', secondsAgo(500))),
      },
      next: counts(3, 3, 2, 3),
      progressing: ['True', 'DaemonSetUpdated', secondsAgo(500)],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'deadline: no progress past the deadline times out',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 2, 3), progressing('True', 'DaemonSetUpdated', secondsAgo(601))),
      },
      next: counts(3, 3, 2, 3),
      progressing: ['False', 'ProgressDeadlineExceeded', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'deadline: progress (one more updated pod) restamps',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 1, 3), progressing('True', 'DaemonSetUpdated', secondsAgo(601))),
      },
      next: counts(3, 3, 2, 3),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'deadline: timed out stays timed out without progress',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 2, 3), progressing('False', 'ProgressDeadlineExceeded', secondsAgo(30))),
      },
      next: counts(3, 3, 2, 3),
      progressing: ['False', 'ProgressDeadlineExceeded', secondsAgo(30)],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
    {
      name: 'deadline: Available wants every node too, whatever maxUnavailable allows',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 3, 3), available('True', 'DaemonPodsAvailable', LONG_AGO)),
      },
      next: counts(3, 3, 3, 2),
      progressing: ['True', 'DaemonSetUpdated', NOW],
      available: ['False', 'DaemonPodsUnavailable', NOW],
    },
    {
      name: 'deadline: complete',
      setup: {
        deadline: 600,
        stored: stored(counts(3, 3, 2, 3), progressing('True', 'DaemonSetUpdated', secondsAgo(601))),
      },
      next: counts(3, 3, 3, 3),
      progressing: ['True', 'NewRevisionAvailable', NOW],
      available: ['True', 'DaemonPodsAvailable', NOW],
    },
  ])('$name', ({ setup, next, progressing: p, available: a }) => {
    const conditions = progressConditions(daemonSet(setup), next, NOW);
    expect(summary(conditions, 'Progressing')).toEqual(p);
    expect(summary(conditions, 'Available')).toEqual(a);
    expect(conditions.map((c) => c.type)).toEqual(['Progressing', 'Available']);
  });

  it('says how many nodes run an available daemon pod', () => {
    const messages = [counts(5, 5, 5, 2), counts(5, 5, 5, 5)].map(
      (next) => progressConditions(daemonSet({}), next, NOW).find((c) => c.type === 'Available')?.message,
    );
    expect(messages).toEqual([
      '2 of 5 nodes run an available daemon pod.',
      '5 of 5 nodes run an available daemon pod.',
    ]);
  });

  it('keeps other condition types where they are', () => {
    const custom = { type: 'StatusUpdate', status: 'True', reason: 'E2E' };
    const ds = daemonSet({
      stored: stored(counts(3, 3, 3, 3), custom, progressing('True', 'DaemonSetUpdated', LONG_AGO)),
    });
    const conditions = progressConditions(ds, counts(3, 3, 3, 3), NOW);
    expect(conditions.map((c) => c.type)).toEqual(['StatusUpdate', 'Progressing', 'Available']);
    expect(conditions[0]).toBe(custom);
  });

  it('schedules a look at the deadline only with progressDeadlineSeconds', () => {
    const rolling = (deadline?: number) => {
      const ds = daemonSet(deadline === undefined ? {} : { deadline });
      const next = counts(3, 3, 1, 3);
      return secondsUntilProgressDeadline(
        ds,
        { ...next, conditions: progressConditions(ds, next, NOW) },
        NOW,
      );
    };
    expect([rolling(600), rolling()]).toEqual([601, undefined]);
  });

  it('without a deadline, changes only when the counts, the generation or paused change (no status write of its own)', () => {
    const step = fc.record({
      desired: fc.integer({ min: 0, max: 3 }),
      current: fc.integer({ min: 0, max: 3 }),
      updated: fc.integer({ min: 0, max: 3 }),
      available: fc.integer({ min: 0, max: 3 }),
      generation: fc.integer({ min: 1, max: 2 }),
      paused: fc.boolean(),
      seconds: fc.integer({ min: 0, max: 3600 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        let ds = daemonSet({});
        let at = NOW.getTime();
        let pausedBefore = false;
        for (const s of steps) {
          at += s.seconds * 1000;
          const current = Math.min(s.current, s.desired);
          const updated = Math.min(s.updated, current);
          const next = counts(s.desired, current, updated, Math.min(s.available, current), s.generation);
          ds = daemonSet({
            paused: s.paused,
            generation: s.generation,
            ...(ds.status ? { stored: ds.status } : {}),
          });
          const status = { ...next, conditions: progressConditions(ds, next, new Date(at)) };
          const countsOnly = (x: V1DaemonSetStatus | undefined) => x && { ...x, conditions: undefined };
          const moved = statusChanged(
            { ...ds, status: countsOnly(ds.status) } as V1DaemonSet,
            countsOnly(status) as V1DaemonSetStatus,
          );
          if (ds.status !== undefined && !moved && s.paused === pausedBefore)
            expect(status.conditions).toEqual(ds.status.conditions);
          ds = { ...ds, status };
          pausedBefore = s.paused;
        }
      }),
    );
  });
});
