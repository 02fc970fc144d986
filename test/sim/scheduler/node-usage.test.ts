import { describe, expect, it } from 'vitest';
import { NodeUsage } from '../../../lib/sim/scheduler/node-usage.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';

function pod(
  name: string,
  node: string | undefined,
  cpu: string,
  phase = 'Running',
  priority?: number,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(node ? { nodeName: node } : {}),
      ...(priority !== undefined ? { priority } : {}),
      containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu, memory: '1Mi' } } }],
    },
    status: { phase },
  };
}

describe('NodeUsage: the requests of the pods bound to each node', () => {
  it('sums bound pods per node and counts them', () => {
    const usage = new NodeUsage();
    usage.update('default/a', pod('a', 'n1', '100m'));
    usage.update('default/b', pod('b', 'n1', '250m', 'Pending'));
    usage.update('default/c', pod('c', 'n2', '1'));
    usage.update('default/d', pod('d', undefined, '1'));
    expect(usage.requested('n1')).toEqual({ cpu: 350, memory: 2 * 1024 ** 2, ephemeralStorage: 0, pods: 2 });
    expect(usage.requested('n2')).toMatchObject({ cpu: 1000, pods: 1 });
    expect(usage.requested('n3')).toMatchObject({ cpu: 0, pods: 0 });
  });

  it.each(['Succeeded', 'Failed'])(
    'stops counting a pod that ended (%s) and says where room freed',
    (phase) => {
      const usage = new NodeUsage();
      usage.update('default/a', pod('a', 'n1', '100m'));
      expect(usage.update('default/a', pod('a', 'n1', '100m', phase))).toBe('n1');
      expect(usage.requested('n1')).toMatchObject({ cpu: 0, pods: 0 });
    },
  );

  it('frees room on deletion and on a smaller request, not on a larger one or a status change', () => {
    const usage = new NodeUsage();
    usage.update('default/a', pod('a', 'n1', '500m'));
    expect(usage.update('default/a', pod('a', 'n1', '500m', 'Running'))).toBeUndefined();
    expect(usage.update('default/a', pod('a', 'n1', '800m'))).toBeUndefined();
    expect(usage.update('default/a', pod('a', 'n1', '200m'))).toBe('n1');
    expect(usage.requested('n1')).toMatchObject({ cpu: 200, pods: 1 });
    expect(usage.update('default/a', undefined)).toBe('n1');
    expect(usage.requested('n1')).toMatchObject({ cpu: 0, pods: 0 });
  });

  it('a terminating pod (being deleted) still counts until it is gone', () => {
    const usage = new NodeUsage();
    const terminating = pod('a', 'n1', '1');
    terminating.metadata.deletionTimestamp = new Date('2026-01-01T00:00:00Z');
    usage.update('default/a', terminating);
    expect(usage.requested('n1')).toMatchObject({ cpu: 1000, pods: 1 });
  });

  it('lists the pods on a node with their priority', () => {
    const usage = new NodeUsage();
    usage.update('default/a', pod('a', 'n1', '1', 'Running', 1000));
    expect([...usage.podsOn('n1')]).toEqual([
      { node: 'n1', priority: 1000, requests: { cpu: 1000, memory: 1024 ** 2, ephemeralStorage: 0 } },
    ]);
  });
});
