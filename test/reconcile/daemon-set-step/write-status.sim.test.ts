import type { V1DaemonSetCondition, V1DaemonSetStatus } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { type RolloutRecord, rolloutRecordOf } from '../../../lib/core/safe-rollout/rollout-record.ts';
import { writeRolloutAnnotation } from '../../../lib/reconcile/daemon-set-step/write-rollout-record.ts';
import {
  needsStatusWrite,
  writeDaemonSetStatus,
} from '../../../lib/reconcile/daemon-set-step/write-status.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { createDaemonSet, daemonSetKey, storedDaemonSet } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

const counts: V1DaemonSetStatus = {
  currentNumberScheduled: 2,
  desiredNumberScheduled: 2,
  numberMisscheduled: 0,
  numberReady: 2,
  numberAvailable: 2,
  updatedNumberScheduled: 2,
  observedGeneration: 1,
};
const at = '2026-12-01T21:25:20.067Z';

/** A condition as built here: type first. */
const built = (reason: string): V1DaemonSetCondition => ({
  type: 'Available',
  status: 'True',
  reason,
  message: '2 of 2 nodes run an available daemon pod.',
  lastTransitionTime: new Date(at),
});

/** The same condition as decoded from the API server: fields in another order, the time a string. */
const stored = (reason: string) =>
  ({
    lastTransitionTime: at,
    message: '2 of 2 nodes run an available daemon pod.',
    reason,
    status: 'True',
    type: 'Available',
  }) as unknown as V1DaemonSetCondition;

describe('needsStatusWrite', () => {
  const ds = (conditions: V1DaemonSetCondition[]) => {
    const d = aDaemonSet('agent');
    d.status = { ...counts, conditions };
    return d;
  };

  it('writes nothing when the conditions say the same, whatever the order of their fields', () => {
    expect(
      needsStatusWrite(ds([stored('DaemonPodsAvailable')]), {
        ...counts,
        conditions: [built('DaemonPodsAvailable')],
      }),
    ).toBe(false);
  });

  it('writes when a condition changed, or a count did', () => {
    expect(
      needsStatusWrite(ds([stored('DaemonPodsAvailable')]), { ...counts, conditions: [built('Other')] }),
    ).toBe(true);
    expect(
      needsStatusWrite(ds([stored('DaemonPodsAvailable')]), {
        ...counts,
        numberReady: 1,
        conditions: [built('DaemonPodsAvailable')],
      }),
    ).toBe(true);
  });
});

describe('writeDaemonSetStatus against the API server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ pollWork: false });
  });
  afterAll(() => harness.stop());

  it('writes a changed status once', async () => {
    const ds = createDaemonSet(harness, aDaemonSet('written')) as DaemonSet;
    expect(await writeDaemonSetStatus(harness.deps, ds, counts)).toBe(1);
    expect(storedDaemonSet(harness, 'default', 'written')?.status?.desiredNumberScheduled).toBe(2);
  });

  it('is done, not failed, when the DaemonSet was deleted since it was read', async () => {
    const ds = createDaemonSet(harness, aDaemonSet('torn-down')) as DaemonSet;
    harness.sim.store.delete(daemonSetKey(harness.managedKind), 'default', 'torn-down');
    expect(storedDaemonSet(harness, 'default', 'torn-down')).toBeUndefined();
    await expect(writeDaemonSetStatus(harness.deps, ds, counts)).resolves.toBe(0);
  });

  it('reads the DaemonSet again after a Conflict and writes once', async () => {
    const ds = createDaemonSet(harness, aDaemonSet('moved')) as DaemonSet;
    const stale = { ...ds, metadata: { ...ds.metadata, resourceVersion: '1' } };
    expect(await writeDaemonSetStatus(harness.deps, stale, counts)).toBe(1);
    expect(storedDaemonSet(harness, 'default', 'moved')?.status?.numberReady).toBe(2);
  });
});

describe('writeDaemonSetStatus of an everynode.dev/v1 DaemonSet', () => {
  let eds: Harness;
  beforeAll(async () => {
    eds = await startReconcileHarness({ pollWork: false, managedKind: 'everynode.dev/v1' });
  });
  afterAll(async () => eds?.stop());

  it('keeps a halted rollout halted when a step read before the halt writes after it', async () => {
    const ds = createDaemonSet(eds, aDaemonSet('halted')) as DaemonSet;
    const running = { revision: 'r2', phase: 'Progressing', updatedNodes: 1 };
    const halted = {
      ...running,
      phase: 'Halted',
      haltedAt: '2026-12-01T21:25:20Z',
      haltReason: 'TooManyFailedNodes',
    };
    expect(
      await writeDaemonSetStatus(eds.deps, ds, { ...counts, rollout: halted } as V1DaemonSetStatus),
    ).toBe(1);
    const stale = { ...ds, metadata: { ...ds.metadata, resourceVersion: '1' } };
    await writeDaemonSetStatus(eds.deps, stale, {
      ...counts,
      numberReady: 1,
      rollout: running,
    } as V1DaemonSetStatus);
    const stored = storedDaemonSet(eds, 'default', 'halted')?.status as { rollout?: { phase?: string } };
    expect(stored.rollout?.phase).toBe('Halted');
  });
});

describe('writeRolloutAnnotation of an apps/v1 DaemonSet', () => {
  let apps: Harness;
  beforeAll(async () => {
    apps = await startReconcileHarness({ pollWork: false });
  });
  afterAll(async () => apps?.stop());

  it('keeps a halted record halted when a step read before the halt writes after it', async () => {
    const ds = createDaemonSet(apps, aDaemonSet('halted')) as DaemonSet;
    const running: RolloutRecord = { revision: 'r2', phase: 'Progressing', updatedNodes: 1 };
    const halted: RolloutRecord = {
      ...running,
      phase: 'Halted',
      haltedAt: '2026-12-01T21:25:20Z',
      haltReason: 'TooManyFailedNodes',
    };
    expect(await writeRolloutAnnotation(apps.deps, ds, halted)).toBeDefined();
    // `ds` is the DaemonSet as read before the halt: its write must not lift it.
    expect(await writeRolloutAnnotation(apps.deps, ds, { ...running, updatedNodes: 2 })).toBeUndefined();
    expect(rolloutRecordOf(storedDaemonSet(apps, 'default', 'halted') as DaemonSet)?.phase).toBe('Halted');
    // A retry of that very halt lifts it, from any read.
    const retried = { ...running, updatedNodes: 2, retried: halted.haltedAt };
    expect(await writeRolloutAnnotation(apps.deps, ds, retried)).toBeDefined();
    expect(rolloutRecordOf(storedDaemonSet(apps, 'default', 'halted') as DaemonSet)).toEqual(retried);
  });
});
