/**
 * The revisions a DaemonSet's latest step listed, handed to its next steps only while its
 * generation stands and the list is at most REVISION_LIST_REUSE_MS old.
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KeptRevisions, REVISION_LIST_REUSE_MS } from '../../../lib/reconcile/memory/kept-revisions.ts';

const revision = (name: string, number: number): V1ControllerRevision => ({
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: { name, namespace: 'default' },
  revision: number,
});

const listed = [revision('agent-a', 1), revision('agent-b', 2)];

describe('KeptRevisions', () => {
  it('hands the kept list back, with when it was listed, for the generation it was listed under', () => {
    const kept = new KeptRevisions();
    kept.put('ds1', 3, listed, 1_000);
    const got = kept.get('ds1', 3, 1_500);
    expect(got?.revisions).toEqual(listed);
    expect(got?.listedAt).toBe(1_000);
    // Handed out again to the next step: a get takes nothing out.
    expect(kept.get('ds1', 3, 1_600)?.revisions).toEqual(listed);
  });

  it('hands nothing for another generation (the spec changed), nor for another DaemonSet', () => {
    const kept = new KeptRevisions();
    kept.put('ds1', 3, listed, 1_000);
    expect(kept.get('ds1', 4, 1_000)).toBeUndefined();
    expect(kept.get('ds1', 2, 1_000)).toBeUndefined();
    expect(kept.get('ds2', 3, 1_000)).toBeUndefined();
    // A miss forgets nothing.
    expect(kept.get('ds1', 3, 1_000)?.revisions).toEqual(listed);
  });

  it('hands the list out up to REVISION_LIST_REUSE_MS after it was listed, not a millisecond longer', () => {
    const kept = new KeptRevisions();
    kept.put('ds1', 1, listed, 10_000);
    expect(kept.get('ds1', 1, 10_000 + REVISION_LIST_REUSE_MS)).toBeDefined();
    expect(kept.get('ds1', 1, 10_000 + REVISION_LIST_REUSE_MS + 1)).toBeUndefined();
  });

  it('replaces a DaemonSet’s list with the one put after it, whatever its generation', () => {
    const kept = new KeptRevisions();
    kept.put('ds1', 1, listed, 1_000);
    kept.put('ds1', 2, [revision('agent-c', 3)], 2_000);
    expect(kept.get('ds1', 1, 2_000)).toBeUndefined();
    expect(kept.get('ds1', 2, 2_000)).toMatchObject({ revisions: [revision('agent-c', 3)], listedAt: 2_000 });
  });

  it('forgets a DaemonSet’s list (its step wrote a revision, or it is gone), and only that one', () => {
    const kept = new KeptRevisions();
    kept.put('ds1', 1, listed, 1_000);
    kept.put('ds2', 1, listed, 1_000);
    kept.forget('ds1');
    kept.forget('never-kept');
    expect(kept.get('ds1', 1, 1_000)).toBeUndefined();
    expect(kept.get('ds2', 1, 1_000)).toBeDefined();
  });

  it('keeps the lists of the 1,024 DaemonSets used last, a list read counting as a use', () => {
    const kept = new KeptRevisions();
    for (let i = 0; i < 1_024; i++) kept.put(`ds${i}`, 1, listed, 1_000);
    // Read the oldest: the next put evicts the second oldest instead.
    expect(kept.get('ds0', 1, 1_000)).toBeDefined();
    kept.put('ds1024', 1, listed, 1_000);
    expect(kept.get('ds0', 1, 1_000)).toBeDefined();
    expect(kept.get('ds1', 1, 1_000)).toBeUndefined();
    expect(kept.get('ds2', 1, 1_000)).toBeDefined();
    expect(kept.get('ds1024', 1, 1_000)).toBeDefined();
  });
});
