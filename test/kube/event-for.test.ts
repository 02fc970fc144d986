import { describe, expect, it } from 'vitest';
import { eventFor } from '../../lib/kube/event-for.ts';

const involvedObject = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  namespace: 'kube-system',
  name: 'fluentd',
  uid: 'u1',
};

describe('eventFor', () => {
  it.each([
    {
      name: 'a Normal event',
      type: 'Normal' as const,
      reason: 'SuccessfulCreate',
      message: 'Created pod: fluentd-abc',
    },
    {
      name: 'a Warning event',
      type: 'Warning' as const,
      reason: 'FailedDaemonPod',
      message: 'Found failed daemon pod',
    },
  ])('records $name as client-go does', ({ type, reason, message }) => {
    const now = new Date('2026-01-01T00:00:00.123Z');
    const event = eventFor({ involvedObject, type, reason, message, now });
    expect(event).toMatchObject({
      metadata: {
        name: `fluentd.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`,
        namespace: 'kube-system',
      },
      involvedObject,
      type,
      reason,
      message,
      source: { component: 'everynode' },
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    });
  });

  it('names events of different instants differently', () => {
    const a = eventFor({ involvedObject, type: 'Normal', reason: 'r', message: 'm', now: new Date(1) });
    const b = eventFor({ involvedObject, type: 'Normal', reason: 'r', message: 'm', now: new Date(2) });
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
  });
});
