/**
 * Which pods a rolling-update delete that met a Conflict may still delete once read again
 * (`stillToDelete`): the same old pod, within the budget the plan counted it in. The deletes
 * themselves, against the simulated cluster, are in rolling-update.sim.test.ts.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../../lib/core/daemon-set.ts';
import { stillToDelete } from '../../../lib/reconcile/daemon-set-step/retry-conflicted-deletes.ts';
import { withReady } from '../../support/pod-readiness.ts';

describe('stillToDelete', () => {
  const now = new Date('2026-01-01T00:00:10Z');
  const pod = (uid: string, ready: boolean, more: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod =>
    withReady(
      {
        metadata: { uid, labels: { [CONTROLLER_REVISION_HASH_LABEL]: 'old' }, ...more },
        status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(0) }] },
      },
      ready,
    );

  it('deletes the same old pod unless it turned available after the plan counted it unavailable', () => {
    expect(stillToDelete(pod('a', true), pod('a', false), 'new', 0, now)).toBe(true);
    expect(stillToDelete(pod('a', true), pod('a', true), 'new', 0, now)).toBe(true);
    expect(stillToDelete(pod('a', false), pod('a', false), 'new', 0, now)).toBe(true);
    expect(stillToDelete(pod('a', false), pod('a', true), 'new', 0, now)).toBe(false);
  });

  it('leaves another pod, one being deleted, and one moved to the target revision', () => {
    expect(stillToDelete(pod('a', true), pod('b', true), 'new', 0, now)).toBe(false);
    expect(stillToDelete(pod('a', true), pod('a', true, { deletionTimestamp: now }), 'new', 0, now)).toBe(
      false,
    );
    const moved = pod('a', true, { labels: { [CONTROLLER_REVISION_HASH_LABEL]: 'new' } });
    expect(stillToDelete(pod('a', true), moved, 'new', 0, now)).toBe(false);
  });
});
