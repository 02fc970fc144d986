import { describe, expect, it } from 'vitest';
import { ClusterStore, type KubeObject } from '../../../lib/sim/storage/store.ts';
import { apiErrorOf, newDaemonSet, newPod } from '../../support/store-test-helpers.ts';

/** A store with DaemonSet `ds` and its pods: `bound` on node n1 and `pending` unscheduled. */
function withOwnedPods(): { store: ClusterStore; ds: KubeObject } {
  const store = new ClusterStore({ now: () => new Date('2026-03-01T10:00:00Z') });
  const ds = store.create('apps/daemonsets', newDaemonSet('ds'));
  const owner = { ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet' } as never;
  store.create('pods', newPod('bound', { owner, nodeName: 'n1' }));
  store.create('pods', newPod('pending', { owner }));
  return { store, ds };
}

describe('ClusterStore delete', () => {
  it('deletes an unbound pod at once and a bound one gracefully', () => {
    const { store } = withOwnedPods();
    store.delete('pods', 'default', 'pending');
    const bound = store.delete('pods', 'default', 'bound');
    expect(store.get('pods', 'default', 'pending')).toBeUndefined();
    expect(bound.metadata).toMatchObject({
      deletionTimestamp: '2026-03-01T10:00:30Z',
      deletionGracePeriodSeconds: 30,
    });
    store.delete('pods', 'default', 'bound', { gracePeriodSeconds: 0 });
    expect(store.get('pods', 'default', 'bound')).toBeUndefined();
  });

  it('carries the final object with a new resourceVersion in the DELETED event', () => {
    const { store } = withOwnedPods();
    const events: { type: string; rv: string | undefined }[] = [];
    store.subscribe((e) => events.push({ type: e.type, rv: e.object.metadata.resourceVersion }));
    const rv = store.resourceVersion;
    store.delete('pods', 'default', 'pending');
    expect(events.at(-1)).toEqual({ type: 'DELETED', rv: String(store.resourceVersion) });
    expect(store.resourceVersion).toBeGreaterThan(rv);
  });

  it.each([
    {
      name: 'uid',
      preconditions: { uid: 'other' },
      message: 'the UID in the precondition (other) does not match',
    },
    {
      name: 'resourceVersion',
      preconditions: { resourceVersion: '1' },
      message: 'the ResourceVersion in the precondition (1) does not match',
    },
  ])('answers 409 to a failed $name precondition', ({ preconditions, message }) => {
    const { store } = withOwnedPods();
    const error = apiErrorOf(() => store.delete('pods', 'default', 'pending', { preconditions }));
    expect(error.status).toBe(409);
    expect(error.message).toContain(message);
  });

  it('answers 404 for a missing object', () => {
    expect(apiErrorOf(() => new ClusterStore().delete('pods', 'default', 'x')).status).toBe(404);
  });

  it('keeps an object with finalizers until they are removed', () => {
    const store = new ClusterStore();
    store.create('pods', {
      ...newPod('p'),
      metadata: { ...newPod('p').metadata, finalizers: ['example.com/keep'] },
    });
    const deleting = store.delete('pods', 'default', 'p');
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    store.mutate('pods', 'default', 'p', (pod) => {
      pod.metadata.finalizers = [];
    });
    expect(store.get('pods', 'default', 'p')).toBeUndefined();
  });
});

describe('ClusterStore garbage collection', () => {
  const policies = [
    { policy: 'Background' as const, dsGoneAtOnce: true, podsAfterGc: ['bound'], boundOwned: true },
    { policy: 'Orphan' as const, dsGoneAtOnce: false, podsAfterGc: ['bound', 'pending'], boundOwned: false },
    { policy: 'Foreground' as const, dsGoneAtOnce: false, podsAfterGc: ['bound'], boundOwned: true },
  ];
  it.each(policies)(
    'propagationPolicy $policy',
    async ({ policy, dsGoneAtOnce, podsAfterGc, boundOwned }) => {
      const { store } = withOwnedPods();
      store.delete('apps/daemonsets', 'default', 'ds', { propagationPolicy: policy });
      expect(store.get('apps/daemonsets', 'default', 'ds') === undefined).toBe(dsGoneAtOnce);
      await store.settled();
      expect(store.list('pods').map((p) => p.metadata.name)).toEqual(podsAfterGc);
      const bound = store.get('pods', 'default', 'bound');
      expect((bound?.metadata.ownerReferences ?? []).length > 0).toBe(boundOwned);
      if (policy !== 'Orphan') expect(bound?.metadata.deletionTimestamp).toBeDefined();
      if (policy === 'Orphan') expect(store.get('apps/daemonsets', 'default', 'ds')).toBeUndefined();
    },
  );

  it('Foreground removes the owner once its blocking dependents are gone', async () => {
    const { store } = withOwnedPods();
    store.delete('apps/daemonsets', 'default', 'ds', { propagationPolicy: 'Foreground' });
    await store.settled();
    expect(store.get('apps/daemonsets', 'default', 'ds')?.metadata.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    store.delete('pods', 'default', 'bound', { gracePeriodSeconds: 0 });
    await store.settled();
    expect(store.get('apps/daemonsets', 'default', 'ds')).toBeUndefined();
  });

  it('deletes a dependent whose owner never existed', async () => {
    const store = new ClusterStore();
    const orphan = newPod('p');
    orphan.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'gone', uid: 'no-such-uid' },
    ];
    store.create('pods', orphan);
    await store.settled();
    expect(store.get('pods', 'default', 'p')).toBeUndefined();
  });

  it('empties a deleted namespace, then removes it', async () => {
    const store = new ClusterStore();
    store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    store.create('pods', newPod('p', { namespace: 'team' }));
    const terminating = store.delete('namespaces', undefined, 'team');
    expect(terminating.status).toEqual({ phase: 'Terminating' });
    expect(apiErrorOf(() => store.create('pods', newPod('q', { namespace: 'team' }))).status).toBe(403);
    await store.settled();
    expect([store.get('pods', 'team', 'p'), store.get('namespaces', undefined, 'team')]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('refuses to delete the default namespace', () => {
    expect(apiErrorOf(() => new ClusterStore().delete('namespaces', undefined, 'default')).status).toBe(403);
  });
});

describe('ClusterStore history', () => {
  it('answers 410 Expired for versions older than the watch window', () => {
    const store = new ClusterStore({ watchWindow: 2 });
    const start = store.resourceVersion;
    for (const name of ['a', 'b', 'c', 'd', 'e']) store.create('pods', newPod(name));
    expect(apiErrorOf(() => store.changesSince('pods', start)).status).toBe(410);
    const recent = store.changesSince('pods', store.resourceVersion - 1);
    expect(recent.map((e) => e.event.object.metadata.name)).toEqual(['e']);
  });

  it('rebuilds the state at an earlier resourceVersion', () => {
    const store = new ClusterStore();
    store.create('pods', newPod('a'));
    const rv = store.resourceVersion;
    store.create('pods', newPod('b'));
    store.mutate('pods', 'default', 'a', (p) => {
      p.metadata.labels = { changed: 'yes' };
    });
    const past = store.viewAt('pods', rv);
    expect(past.map((p) => [p.metadata.name, p.metadata.labels?.changed ?? 'no'])).toEqual([['a', 'no']]);
    expect(apiErrorOf(() => store.viewAt('pods', store.resourceVersion + 10)).status).toBe(504);
  });
});
