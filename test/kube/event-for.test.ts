import { describe, expect, it } from 'vitest';
import { dns1123SubdomainErrors } from '../../lib/core/object-names.ts';
import { eventFor, eventName } from '../../lib/kube/operations/event-for.ts';

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

describe('eventName', () => {
  // 2026 in nanoseconds has 16 hex digits: the suffix is 17 characters, leaving 236 for the name.
  const nanos = BigInt(Date.parse('2026-01-01T00:00:00Z')) * 1_000_000n;
  const hex = nanos.toString(16);
  const a = (n: number) => 'a'.repeat(n);
  it.each([
    { name: '1 character: whole', object: 'x', expected: `x.${hex}` },
    { name: '63 characters: whole', object: a(63), expected: `${a(63)}.${hex}` },
    { name: '236 characters: whole, 253 in all', object: a(236), expected: `${a(236)}.${hex}` },
    { name: '243 characters: cut to 236', object: a(243), expected: `${a(236)}.${hex}` },
    { name: '253 characters: cut to 236', object: `${a(250)}.bc`, expected: `${a(236)}.${hex}` },
    { name: 'a cut ending in a dot loses it', object: `${a(235)}.${a(17)}`, expected: `${a(235)}.${hex}` },
    { name: 'a cut ending in a dash loses it', object: `${a(234)}--${a(17)}`, expected: `${a(234)}.${hex}` },
  ])('$name', ({ object, expected }) => {
    const name = eventName(object, nanos);
    expect(name).toBe(expected);
    expect(dns1123SubdomainErrors(name)).toEqual([]);
  });

  it('names the event of a 253-character object validly', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const long = { ...involvedObject, name: `${a(240)}.${a(12)}` };
    const event = eventFor({ involvedObject: long, type: 'Normal', reason: 'r', message: 'm', now });
    expect(dns1123SubdomainErrors(event.metadata?.name ?? '')).toEqual([]);
    expect(event.involvedObject.name).toBe(long.name);
  });
});
