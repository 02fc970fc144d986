import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../lib/kube/codec/model-decoder.ts';

const podList = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'next-page', remainingItemCount: 3 },
  items: [
    {
      metadata: {
        name: 'agent-n1',
        namespace: 'default',
        creationTimestamp: '2026-01-02T03:04:05Z',
        deletionTimestamp: '2026-01-02T03:05:05Z',
        labels: { app: 'agent' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'u', controller: true },
        ],
        managedFields: [{ manager: 'kubectl', operation: 'Update', time: '2026-01-02T03:04:05Z' }],
      },
      spec: {
        containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
              ],
            },
          },
        },
      },
      status: {
        phase: 'Running',
        startTime: '2026-01-02T03:04:06Z',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-02T03:04:07Z' }],
        containerStatuses: [
          {
            name: 'c',
            ready: true,
            restartCount: 0,
            image: 'busybox',
            imageID: '',
            state: { running: { startedAt: '2026-01-02T03:04:06Z' } },
          },
        ],
      },
    },
  ],
};

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('decodeModel', () => {
  it('gives what client-node deserializes: Dates, property names, the same JSON', () => {
    const slow = ObjectSerializer.deserialize(copy(podList), 'V1PodList', '');
    const fast = decodeModel<typeof slow>(copy(podList), 'V1PodList');
    expect(JSON.parse(JSON.stringify(fast))).toEqual(JSON.parse(JSON.stringify(slow)));
    const pod = fast.items[0];
    expect(pod.metadata.creationTimestamp).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(pod.status.conditions[0].lastTransitionTime).toBeInstanceOf(Date);
    expect(pod.status.containerStatuses[0].state.running.startedAt).toBeInstanceOf(Date);
    expect(pod.metadata.managedFields[0].time).toBeInstanceOf(Date);
    expect(fast.metadata._continue).toBe('next-page');
    expect(fast.metadata).not.toHaveProperty('continue');
  });

  it('keeps fields the model does not know (everynode extensions)', () => {
    const ds = decodeModel<Record<string, Record<string, unknown>>>(
      {
        apiVersion: 'everynode.dev/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent', creationTimestamp: '2026-01-02T03:04:05Z' },
        spec: { rollout: { strict: true, partition: 2 }, selector: { matchLabels: { app: 'a' } } },
      },
      'V1DaemonSet',
    );
    expect(ds.spec?.rollout).toEqual({ strict: true, partition: 2 });
    expect(ds.metadata?.creationTimestamp).toBeInstanceOf(Date);
  });

  it('leaves values of unknown types, nulls and missing fields alone', () => {
    expect(decodeModel({ a: 1 }, 'NoSuchModel')).toEqual({ a: 1 });
    expect(decodeModel(null, 'V1Pod')).toBeNull();
    expect(decodeModel({ metadata: { deletionTimestamp: null } }, 'V1Pod')).toEqual({
      metadata: { deletionTimestamp: null },
    });
  });
});
