import { describe, expect, it } from 'vitest';
import { ClusterStore, type KubeObject } from '../../../lib/sim/storage/store.ts';
import { apiErrorOf, newDaemonSet, newNode, newPod } from '../../support/store-test-helpers.ts';

describe('ClusterStore create', () => {
  it('sets uid, creationTimestamp, an integer resourceVersion and generation 1 on DaemonSets', () => {
    const store = new ClusterStore({ now: () => new Date('2026-03-01T10:00:00.123Z') });
    const before = store.resourceVersion;
    const ds = store.create('apps/daemonsets', newDaemonSet('fluentd'));
    expect(ds.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(ds.metadata.creationTimestamp).toBe('2026-03-01T10:00:00Z');
    expect(ds.metadata.resourceVersion).toBe(String(before + 1));
    expect(ds.metadata.generation).toBe(1);
    expect(ds.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('1');
    expect(ds.spec).toMatchObject({ revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate' } });
  });

  it('generates a name from generateName', () => {
    const store = new ClusterStore();
    const pod = newPod('');
    pod.metadata = { ...pod.metadata, name: undefined, generateName: 'web-' } as KubeObject['metadata'];
    const created = store.create('pods', pod);
    expect(created.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('resets pod status to Pending and applies pod defaults and default toleration seconds', () => {
    const store = new ClusterStore();
    const pod = store.create('pods', { ...newPod('p'), status: { phase: 'Running' } });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
    });
    expect((pod.spec as { tolerations: unknown[] }).tolerations).toContainEqual({
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    });
  });

  const refusals: {
    name: string;
    key: 'pods' | 'apps/daemonsets';
    obj: () => KubeObject;
    status: number;
    reason: string;
    field?: string;
  }[] = [
    { name: 'duplicate name', key: 'pods', obj: () => newPod('dup'), status: 409, reason: 'AlreadyExists' },
    {
      name: 'missing namespace',
      key: 'pods',
      obj: () => newPod('p', { namespace: 'nope' }),
      status: 404,
      reason: 'NotFound',
    },
    {
      name: 'invalid name',
      key: 'pods',
      obj: () => newPod('Bad_Name'),
      status: 422,
      reason: 'Invalid',
      field: 'metadata.name',
    },
    {
      name: 'invalid label value',
      key: 'pods',
      obj: () => newPod('p', { labels: { app: 'a b' } }),
      status: 422,
      reason: 'Invalid',
      field: 'metadata.labels',
    },
    {
      name: 'pod without image',
      key: 'pods',
      obj: () => ({ ...newPod('p'), spec: { containers: [{ name: 'c' }] } }),
      status: 422,
      reason: 'Invalid',
      field: 'spec.containers[0].image',
    },
    {
      name: 'unknown restartPolicy',
      key: 'pods',
      obj: () => ({
        ...newPod('p'),
        spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Sometimes' },
      }),
      status: 422,
      reason: 'Invalid',
      field: 'spec.restartPolicy',
    },
    {
      name: 'DaemonSet selector not matching template labels',
      key: 'apps/daemonsets',
      obj: () => {
        const ds = newDaemonSet('ds');
        (ds.spec as { selector: unknown }).selector = { matchLabels: { app: 'other' } };
        return ds;
      },
      status: 422,
      reason: 'Invalid',
      field: 'spec.template.metadata.labels',
    },
    {
      name: 'DaemonSet with restartPolicy Never',
      key: 'apps/daemonsets',
      obj: () => newDaemonSet('ds', { podSpec: { restartPolicy: 'Never' } }),
      status: 422,
      reason: 'Invalid',
      field: 'spec.template.spec.restartPolicy',
    },
    {
      name: 'resourceVersion set on create',
      key: 'pods',
      obj: () => ({ ...newPod('p'), metadata: { ...newPod('p').metadata, resourceVersion: '5' } }),
      status: 500,
      reason: 'InternalError',
    },
  ];
  it.each(refusals)('refuses $name with $status $reason', ({ key, obj, status, reason, field }) => {
    const store = new ClusterStore();
    store.create('pods', newPod('dup'));
    const error = apiErrorOf(() => store.create(key, obj()));
    expect([error.status, error.reason]).toEqual([status, reason]);
    if (field) expect(error.toStatus().details?.causes?.map((c) => c.field)).toContain(field);
  });

  it('stores nothing on dry run', () => {
    const store = new ClusterStore();
    const rv = store.resourceVersion;
    store.create('pods', newPod('p'), { dryRun: true });
    expect([store.get('pods', 'default', 'p'), store.resourceVersion]).toEqual([undefined, rv]);
  });
});

describe('ClusterStore list', () => {
  const store = new ClusterStore();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
  for (const node of ['n1', 'n2']) store.create('nodes', newNode(node));
  store.create('pods', newPod('a', { nodeName: 'n1', labels: { app: 'web', tier: 'front' } }));
  store.create('pods', newPod('b', { nodeName: 'n2', labels: { app: 'web' } }));
  store.create('pods', newPod('c', { labels: { app: 'db' } }));
  store.create('pods', newPod('d', { namespace: 'other', nodeName: 'n1', labels: { app: 'web' } }));
  const cases = [
    { name: 'everything, in namespace/name order', filter: {}, names: ['a', 'b', 'c', 'd'] },
    { name: 'one namespace', filter: { namespace: 'other' }, names: ['d'] },
    { name: 'by node', filter: { fieldSelector: 'spec.nodeName=n1' }, names: ['a', 'd'] },
    { name: 'unscheduled', filter: { fieldSelector: 'spec.nodeName=' }, names: ['c'] },
    { name: 'equality label', filter: { labelSelector: 'app=web' }, names: ['a', 'b', 'd'] },
    {
      name: 'set-based labels',
      filter: { labelSelector: 'app in (web,db),tier notin (front)' },
      names: ['b', 'c', 'd'],
    },
    { name: 'label existence', filter: { labelSelector: '!tier' }, names: ['b', 'c', 'd'] },
    {
      name: 'labels and fields',
      filter: { labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1,metadata.namespace!=other' },
      names: ['a'],
    },
  ];
  it.each(cases)('$name', ({ filter, names }) => {
    expect(store.list('pods', filter).map((p) => p.metadata.name)).toEqual(names);
  });

  it.each([
    {
      name: 'unsupported field',
      filter: { fieldSelector: 'spec.hostname=x' },
      message: 'field label not supported: spec.hostname',
    },
    {
      name: 'bad label syntax',
      filter: { labelSelector: 'app in web' },
      message: "unable to parse requirement: found 'web', expected: '('",
    },
  ])('refuses $name with 400', ({ filter, message }) => {
    const error = apiErrorOf(() => store.list('pods', filter));
    expect([error.status, error.message]).toEqual([400, message]);
  });
});
