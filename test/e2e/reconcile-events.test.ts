import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_USER_AGENT } from '../../lib/reconcile/setup/deps-for-config.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  placementOf,
  storedDaemonSet,
  updateDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

const NODES = Array.from({ length: 30 }, (_, i) => `n${String(i + 1).padStart(2, '0')}`);

describe('events and invalid specs', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)) });
  });
  afterAll(async () => harness?.stop());

  const eventsOf = (name: string, reason: string) =>
    (harness.sim.store.list('events') as unknown as CoreV1Event[]).filter(
      (event) => event.involvedObject.name === name && event.reason === reason,
    );

  it('records SuccessfulCreate with upstream messages, at most 25 per DaemonSet (spam filter); a hinted pair costs one request', async () => {
    harness.sim.counters.reset();
    const ds = createDaemonSet(harness, aDaemonSet('agent'));
    await harness.send(daemonSetMessage(ds));
    await waitFor(
      'placed',
      () =>
        placementOf(harness, ds.metadata?.uid ?? '').length === 30 &&
        allReady(harness, ds.metadata?.uid ?? ''),
    );
    await harness.quiet();
    const created = eventsOf('agent', 'SuccessfulCreate');
    expect(created).toHaveLength(25);
    expect(created[0]).toMatchObject({
      type: 'Normal',
      message: expect.stringMatching(/^Created pod: agent-n\d\d-/),
      involvedObject: {
        kind: 'DaemonSet',
        apiVersion: 'apps/v1',
        namespace: 'default',
        uid: ds.metadata?.uid,
      },
      source: { component: 'everynode' },
    });
    const requests = (verb: string, resource: string) =>
      harness.sim.counters.total({ verb, resource, userAgent: RECONCILE_USER_AGENT });
    expect(requests('create', 'pods')).toBe(30);
    // The DaemonSet step reads; the 30 hinted pairs read nothing (one GET fills the process cache).
    expect(requests('get', 'nodes')).toBe(0);
    expect(requests('list', 'pods')).toBeLessThanOrEqual(4);
    expect(requests('get', 'apps/daemonsets')).toBeLessThanOrEqual(3);
  });

  it('an invalid spec gets a condition and a Warning event, touches no pod; fixing it rolls on', async () => {
    const ds = createDaemonSet(
      harness,
      aDaemonSet('broken', { annotations: { 'everynode.dev/partition': 'many' } }),
    );
    await harness.send(daemonSetMessage(ds));
    await harness.quiet();
    expect(placementOf(harness, ds.metadata?.uid ?? '')).toEqual([]);
    expect(eventsOf('broken', 'InvalidSpec')[0]).toMatchObject({
      type: 'Warning',
      message: expect.stringContaining('everynode.dev/partition'),
    });
    expect(storedDaemonSet(harness, 'default', 'broken')?.status?.conditions).toEqual([
      expect.objectContaining({ type: 'ReplicaFailure', status: 'True', reason: 'InvalidSpec' }),
    ]);
    const fixed = updateDaemonSet(harness, 'default', 'broken', (stored) => {
      if (stored.metadata?.annotations) stored.metadata.annotations['everynode.dev/partition'] = '0';
    });
    await harness.send(daemonSetMessage(fixed));
    await waitFor('placed', () => placementOf(harness, ds.metadata?.uid ?? '').length === 30);
    await harness.quiet();
    await harness.send(daemonSetMessage(fixed));
    await harness.quiet();
    // The invalid-spec condition is gone; the DaemonSet's own conditions remain.
    expect(storedDaemonSet(harness, 'default', 'broken')?.status?.conditions?.map((c) => c.type)).toEqual([
      'Progressing',
      'Available',
    ]);
  });
});
