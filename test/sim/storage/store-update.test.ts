import { describe, expect, it } from 'vitest';
import { ClusterStore, type KubeObject } from '../../../lib/sim/storage/store.ts';
import { apiErrorOf, newDaemonSet, newPod } from '../../support/store-test-helpers.ts';

describe('ClusterStore update', () => {
  it('answers 409 Conflict to a stale resourceVersion', () => {
    const store = new ClusterStore();
    const ds = store.create('apps/daemonsets', newDaemonSet('ds'));
    store.update('apps/daemonsets', { ...ds, metadata: { ...ds.metadata, labels: { a: '1' } } });
    const error = apiErrorOf(() =>
      store.update('apps/daemonsets', { ...ds, metadata: { ...ds.metadata, labels: { a: '2' } } }),
    );
    expect([error.status, error.reason]).toEqual([409, 'Conflict']);
    expect(error.message).toBe(
      'Operation cannot be fulfilled on daemonsets.apps "ds": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  const generationCases = [
    {
      name: 'label change keeps generation',
      change: (ds: KubeObject) => {
        ds.metadata.labels = { x: 'y' };
      },
      generation: 1,
      templateGeneration: '1',
    },
    {
      name: 'minReadySeconds bumps generation only',
      change: (ds: KubeObject) => {
        (ds.spec as Record<string, unknown>).minReadySeconds = 5;
      },
      generation: 2,
      templateGeneration: '1',
    },
    {
      name: 'image change bumps generation and template generation',
      change: (ds: KubeObject) => {
        const spec = ds.spec as { template: { spec: { containers: { image: string }[] } } };
        const first = spec.template.spec.containers[0];
        if (first) first.image = 'fluentd:2';
      },
      generation: 2,
      templateGeneration: '2',
    },
    {
      name: 'status through the main resource is ignored',
      change: (ds: KubeObject) => {
        ds.status = { numberReady: 3 };
      },
      generation: 1,
      templateGeneration: '1',
    },
  ];
  it.each(generationCases)('$name', ({ change, generation, templateGeneration }) => {
    const store = new ClusterStore();
    const ds = store.create('apps/daemonsets', newDaemonSet('ds'));
    change(ds);
    const updated = store.update('apps/daemonsets', ds);
    expect(updated.metadata.generation).toBe(generation);
    expect(updated.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe(
      templateGeneration,
    );
    expect((updated.status as { numberReady: number }).numberReady).toBe(0);
  });

  it('writes only status through the status subresource', () => {
    const store = new ClusterStore();
    const ds = store.create('apps/daemonsets', newDaemonSet('ds'));
    const updated = store.update(
      'apps/daemonsets',
      { ...ds, metadata: { ...ds.metadata, labels: { x: 'y' } }, status: { numberReady: 2 } },
      { subresource: 'status' },
    );
    expect(updated.status).toEqual({ numberReady: 2 });
    expect(updated.metadata.labels).toEqual(ds.metadata.labels);
    expect(updated.metadata.generation).toBe(1);
  });

  it('keeps the resourceVersion of a no-op update', () => {
    const store = new ClusterStore();
    const pod = store.create('pods', newPod('p'));
    expect(store.update('pods', pod).metadata.resourceVersion).toBe(pod.metadata.resourceVersion);
    expect(store.mutate('pods', 'default', 'p', () => {})?.metadata.resourceVersion).toBe(
      pod.metadata.resourceVersion,
    );
  });

  const podUpdates = [
    {
      name: 'image change allowed',
      change: (s: Record<string, unknown>) => {
        (s.containers as { image: string }[])[0] = { ...(s.containers as object[])[0], image: 'nginx' } as {
          image: string;
        };
      },
      ok: true,
    },
    {
      name: 'nodeName change refused',
      change: (s: Record<string, unknown>) => {
        s.nodeName = 'n2';
      },
      ok: false,
    },
    {
      name: 'removing a toleration refused',
      change: (s: Record<string, unknown>) => {
        s.tolerations = [];
      },
      ok: false,
      field: 'spec.tolerations',
    },
    {
      name: 'resources change refused: only pods/resize may',
      change: (s: Record<string, unknown>) => {
        (s.containers as { resources: object }[])[0] = {
          ...(s.containers as object[])[0],
          resources: { requests: { cpu: '1' } },
        } as { resources: object };
      },
      ok: false,
    },
  ];
  it.each(podUpdates)('pod spec update: $name', ({ change, ok, ...rest }) => {
    const field = 'field' in rest ? rest.field : 'spec';
    const store = new ClusterStore();
    const pod = store.create('pods', newPod('p'));
    change(pod.spec as Record<string, unknown>);
    if (ok) expect(store.update('pods', pod).metadata.name).toBe('p');
    else
      expect(apiErrorOf(() => store.update('pods', pod)).toStatus().details?.causes?.[0]?.field).toBe(field);
  });

  it('refuses a selector change as immutable', () => {
    const store = new ClusterStore();
    const ds = store.create('apps/daemonsets', newDaemonSet('ds'));
    const spec = ds.spec as { selector: unknown; template: { metadata: { labels: Record<string, string> } } };
    spec.selector = { matchLabels: { app: 'ds', tier: 'x' } };
    spec.template.metadata.labels = { app: 'ds', tier: 'x' };
    const causes = apiErrorOf(() => store.update('apps/daemonsets', ds)).toStatus().details?.causes ?? [];
    expect(causes).toContainEqual(
      expect.objectContaining({
        field: 'spec.selector',
        message: expect.stringContaining('field is immutable'),
      }),
    );
  });
});
