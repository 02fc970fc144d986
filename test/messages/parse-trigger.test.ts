import { describe, expect, it } from 'vitest';
import { causeOfTrigger, parseTrigger } from '../../lib/messages/parse-trigger.ts';

function anEvent(detailType: string, source: string, detail: unknown, extra: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: 'evt-1',
    'detail-type': detailType,
    source,
    account: '123456789012',
    time: '2026-01-01T00:00:00Z',
    region: 'eu-west-1',
    resources: [],
    detail,
    ...extra,
  };
}

const podEvent = {
  v: 1,
  event: 'MODIFIED',
  kind: 'Pod',
  apiVersion: 'v1',
  name: 'fluentd-n1',
  namespace: 'kube-system',
  uid: 'uid-p',
  resourceVersion: '77',
  controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'uid-ds' },
  nodeName: 'n1',
};
const gatingPodEvent = {
  ...podEvent,
  changes: ['ready'],
  gatesNode: true,
  hints: {
    observedAt: '2026-01-01T00:00:00Z',
    node: { name: 'n1', resourceVersion: '5' },
    daemonSets: [{ uid: 'uid-ds', resourceVersion: '9' }],
    pods: [{ name: 'fluentd-n1', uid: 'uid-p', resourceVersion: '77', ready: true }],
  },
};
const ec2Detail = { 'instance-id': 'i-0123456789abcdef0', state: 'terminated' };
const gateWaitEvent = {
  v: 1,
  event: 'MODIFIED',
  kind: 'Node',
  apiVersion: 'v1',
  name: 'n1',
  uid: 'uid-n',
  resourceVersion: '5',
  timer: 'gate-wait',
};

describe('parseTrigger', () => {
  it.each([
    {
      name: 'a relayed pod watch event',
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', podEvent),
      trigger: { type: 'watch', eventId: 'evt-1', watch: podEvent },
      cause: { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '77' },
    },
    {
      name: 'a relayed pod watch event with the facets that changed',
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', { ...podEvent, changes: ['ready'] }),
      trigger: { type: 'watch', eventId: 'evt-1', watch: { ...podEvent, changes: ['ready'] } },
      cause: { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '77' },
    },
    {
      name: 'a relayed pod watch event of a pod that gates its node, with its node hints',
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', gatingPodEvent),
      trigger: { type: 'watch', eventId: 'evt-1', watch: gatingPodEvent },
      cause: { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '77' },
    },
    {
      name: "a node trigger of the relay's gate-wait timer",
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', gateWaitEvent),
      trigger: { type: 'watch', eventId: 'evt-1', watch: gateWaitEvent },
      cause: { type: 'watch', event: 'MODIFIED', kind: 'Node', resourceVersion: '5', timer: 'gate-wait' },
    },
    {
      name: 'a replayed node trigger of the gate-wait timer',
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', gateWaitEvent, { 'replay-name': 'r' }),
      trigger: { type: 'watch', replayName: 'r' },
      cause: { type: 'replay', replayName: 'r', eventId: 'evt-1' },
    },
    {
      name: 'an EC2 Instance State-change Notification',
      body: anEvent('EC2 Instance State-change Notification', 'aws.ec2', ec2Detail),
      trigger: { type: 'ec2', instanceId: 'i-0123456789abcdef0', state: 'terminated' },
      cause: { type: 'ec2', eventId: 'evt-1', instanceId: 'i-0123456789abcdef0', state: 'terminated' },
    },
    {
      name: 'an everynode resync',
      body: anEvent('Everynode Resync', 'everynode.scheduler', { v: 1, reason: 'schedule' }),
      trigger: { type: 'resync', reason: 'schedule' },
      cause: { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'evt-1' },
    },
    {
      name: 'a classic scheduled event',
      body: anEvent('Scheduled Event', 'aws.events', {}),
      trigger: { type: 'resync', time: '2026-01-01T00:00:00Z' },
      cause: { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'evt-1' },
    },
    {
      name: 'a replayed watch event',
      body: anEvent('Kubernetes Watch Event', 'everynode.relay', podEvent, { 'replay-name': 'replay-2026' }),
      trigger: { type: 'watch', replayName: 'replay-2026' },
      cause: { type: 'replay', replayName: 'replay-2026', eventId: 'evt-1' },
    },
  ])('reads $name and its cause', ({ body, trigger, cause }) => {
    const result = parseTrigger(JSON.stringify(body));
    expect(result).toMatchObject({ ok: true, trigger });
    if (result.ok) expect(causeOfTrigger(result.trigger)).toEqual(cause);
  });

  it('reads a watch event from a relay that knows no gates as not gating its node', () => {
    const result = parseTrigger(
      JSON.stringify(anEvent('Kubernetes Watch Event', 'everynode.relay', podEvent)),
    );
    expect(result).toMatchObject({ ok: true, trigger: { type: 'watch' } });
    if (result.ok && result.trigger.type === 'watch') expect(result.trigger.watch.gatesNode).toBeUndefined();
  });

  it.each([
    { name: 'not JSON', body: 'nope', reason: /^body is not JSON/ },
    {
      name: 'not an EventBridge event',
      body: JSON.stringify({ hello: 1 }),
      reason: /^invalid EventBridge event: .*id/,
    },
    {
      name: 'an unknown source',
      body: JSON.stringify(anEvent('Object Created', 'aws.s3', {})),
      reason: /^unknown trigger: source aws.s3, detail-type Object Created$/,
    },
    {
      name: 'a BOOKMARK relayed',
      body: JSON.stringify(
        anEvent('Kubernetes Watch Event', 'everynode.relay', { ...podEvent, event: 'BOOKMARK' }),
      ),
      reason: /^invalid watch event detail: .*event/,
    },
    {
      name: 'a watch event of another version',
      body: JSON.stringify(anEvent('Kubernetes Watch Event', 'everynode.relay', { ...podEvent, v: 2 })),
      reason: /^invalid watch event detail: .*v/,
    },
    {
      name: 'a watch event whose gatesNode is not a boolean',
      body: JSON.stringify(
        anEvent('Kubernetes Watch Event', 'everynode.relay', { ...podEvent, gatesNode: 'true' }),
      ),
      reason: /^invalid watch event detail: .*gatesNode/,
    },
    {
      name: 'a trigger of a timer the router does not know',
      body: JSON.stringify(
        anEvent('Kubernetes Watch Event', 'everynode.relay', { ...gateWaitEvent, timer: 'someday' }),
      ),
      reason: /^invalid watch event detail: .*timer/,
    },
    {
      name: 'an EC2 event without instance id',
      body: JSON.stringify(
        anEvent('EC2 Instance State-change Notification', 'aws.ec2', { state: 'running' }),
      ),
      reason: /^invalid EC2 state-change detail: .*instance-id/,
    },
    {
      name: 'a bad time',
      body: JSON.stringify({ ...anEvent('Scheduled Event', 'aws.events', {}), time: 'noon' }),
      reason: /^invalid EventBridge event: .*time/,
    },
  ])('rejects $name', ({ body, reason }) => {
    const result = parseTrigger(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('rolloutSlot on a watch trigger', () => {
  const readyPod = { ...podEvent, changes: ['ready'] };
  const body = (detail: Record<string, unknown>) =>
    JSON.stringify(anEvent('Kubernetes Watch Event', 'everynode.relay', detail));

  it('is kept when set', () => {
    const result = parseTrigger(body({ ...readyPod, rolloutSlot: true }));
    expect(result.ok && result.trigger.type === 'watch' && result.trigger.watch.rolloutSlot).toBe(true);
  });

  it('is absent in a trigger of an older relay, which stays valid', () => {
    const result = parseTrigger(body(readyPod));
    expect(result).toMatchObject({ ok: true, trigger: { type: 'watch' } });
    if (result.ok && result.trigger.type === 'watch')
      expect(result.trigger.watch.rolloutSlot).toBeUndefined();
  });

  it('is refused when not a boolean', () => {
    const result = parseTrigger(body({ ...readyPod, rolloutSlot: 'true' }));
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.reason).toMatch(/^invalid watch event detail: .*rolloutSlot/);
  });
});
