import { describe, expect, it } from 'vitest';
import type { MessageCause } from '../../lib/messages/message-cause.ts';
import { messageDeduplicationId } from '../../lib/messages/message-deduplication-id.ts';
import { fifoSafeId, MAX_FIFO_ID_LENGTH, messageGroupId } from '../../lib/messages/message-group-id.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';

const watch: MessageCause = { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '42' };

function aPair(
  node: string,
  cause: MessageCause = watch,
  ds = { namespace: 'kube-system', name: 'fluentd', uid: 'u1' },
) {
  return { v: 1, kind: 'pair', daemonSet: ds, node: { name: node }, cause } satisfies WorkMessage;
}
const aDaemonSetMessage = (cause: MessageCause = watch): WorkMessage => ({
  v: 1,
  kind: 'daemonset',
  daemonSet: { namespace: 'kube-system', name: 'fluentd', uid: 'u1' },
  cause,
});
const aNodeMessage = (name: string, cause: MessageCause = watch): WorkMessage => ({
  v: 1,
  kind: 'node',
  node: { name },
  cause,
});

const longName = `${'a'.repeat(250)}.b`;
const allowed = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]+$/;

describe('messageGroupId', () => {
  it.each([
    { name: 'pair', message: aPair('n1'), group: 'pair:kube-system/fluentd/n1' },
    { name: 'daemonset', message: aDaemonSetMessage(), group: 'ds:kube-system/fluentd' },
    { name: 'node', message: aNodeMessage('n1'), group: 'node:n1' },
  ])('names the group of a $name message', ({ message, group }) => {
    expect(messageGroupId(message)).toBe(group);
  });

  it('puts every cause of one pair in one group, and other pairs elsewhere', () => {
    const requeue: MessageCause = { type: 'requeue', reason: 'r', requestedAt: '2026-01-01T00:00:00Z' };
    expect(messageGroupId(aPair('n1', requeue))).toBe(messageGroupId(aPair('n1')));
    expect(messageGroupId(aPair('n2'))).not.toBe(messageGroupId(aPair('n1')));
  });

  it.each([
    { name: 'long node name', message: aPair(longName) },
    {
      name: 'long namespace and name',
      message: aPair('n1', watch, { namespace: longName, name: longName, uid: 'u' }),
    },
    { name: 'long node message', message: aNodeMessage(longName) },
  ])('shortens the id of a $name to at most 128 allowed characters', ({ message }) => {
    const id = messageGroupId(message);
    expect(id.length).toBeLessThanOrEqual(MAX_FIFO_ID_LENGTH);
    expect(id).toMatch(allowed);
    expect(id.startsWith(message.kind === 'node' ? 'node:aaa' : 'pair:')).toBe(true);
  });

  it('keeps long ids that differ only at the end apart', () => {
    expect(messageGroupId(aPair(`${longName}1`))).not.toBe(messageGroupId(aPair(`${longName}2`)));
  });

  it('leaves ids of exactly 128 characters as they are', () => {
    const id = 'x'.repeat(128);
    expect(fifoSafeId(id)).toBe(id);
    expect(fifoSafeId(`${id}y`)).toHaveLength(128);
  });
});

describe('messageDeduplicationId', () => {
  const requeueAt = (at: string, attempt?: number): MessageCause => ({
    type: 'requeue',
    reason: 'waiting for terminating pod',
    requestedAt: at,
    ...(attempt === undefined ? {} : { attempt }),
  });
  const cases: { name: string; a: WorkMessage; b: WorkMessage; same: boolean }[] = [
    { name: 'a duplicate watch event', a: aPair('n1'), b: aPair('n1'), same: true },
    {
      name: 'the same watch event with key order changed and hints added',
      a: aPair('n1', { resourceVersion: '42', kind: 'Pod', event: 'MODIFIED', type: 'watch' }),
      b: {
        ...aPair('n1'),
        hints: {
          observedAt: '2026-01-01T00:00:00Z',
          daemonSet: { resourceVersion: '1', revisionHash: 'h' },
          node: null,
          pods: [],
        },
      },
      same: true,
    },
    {
      name: 'a later version of the object',
      a: aPair('n1'),
      b: aPair('n1', { ...watch, resourceVersion: '43' }),
      same: false,
    },
    { name: 'another node', a: aPair('n1'), b: aPair('n2'), same: false },
    {
      name: 'a re-created DaemonSet (new uid)',
      a: aPair('n1'),
      b: aPair('n1', watch, { namespace: 'kube-system', name: 'fluentd', uid: 'u2' }),
      same: false,
    },
    { name: 'pair and daemonset work from one event', a: aPair('n1'), b: aDaemonSetMessage(), same: false },
    {
      name: 'two requeues for the same reason',
      a: aPair('n1', requeueAt('2026-01-01T00:00:00Z')),
      b: aPair('n1', requeueAt('2026-01-01T00:00:05Z')),
      same: false,
    },
    {
      name: 'a resent requeue',
      a: aPair('n1', requeueAt('2026-01-01T00:00:00Z', 1)),
      b: aPair('n1', requeueAt('2026-01-01T00:00:00Z', 1)),
      same: true,
    },
    {
      name: 'a replay of an event',
      a: aPair('n1'),
      b: aPair('n1', { type: 'replay', replayName: 'r1', eventId: 'e1' }),
      same: false,
    },
    {
      name: 'two replays of one event',
      a: aPair('n1', { type: 'replay', replayName: 'r1', eventId: 'e1' }),
      b: aPair('n1', { type: 'replay', replayName: 'r2', eventId: 'e1' }),
      same: false,
    },
    {
      name: 'two resync ticks',
      a: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:00:00Z' }),
      b: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:05:00Z' }),
      same: false,
    },
    {
      name: 'two resyncs asked within one second',
      a: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'e1' }),
      b: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'e2' }),
      same: false,
    },
    {
      name: 'one resync event delivered twice',
      a: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'e1' }),
      b: aNodeMessage('n1', { type: 'resync', at: '2026-01-01T00:00:00Z', eventId: 'e1' }),
      same: true,
    },
    {
      name: 'one EC2 event delivered twice',
      a: aNodeMessage('n1', { type: 'ec2', eventId: 'e', instanceId: 'i-1', state: 'running' }),
      b: aNodeMessage('n1', { type: 'ec2', eventId: 'e', instanceId: 'i-1', state: 'running' }),
      same: true,
    },
  ];

  it.each(cases)('$name: same id is $same', ({ a, b, same }) => {
    expect(messageDeduplicationId(a) === messageDeduplicationId(b)).toBe(same);
  });

  describe("a relay timer's trigger", () => {
    const nodeWatch: MessageCause = { type: 'watch', event: 'MODIFIED', kind: 'Node', resourceVersion: '42' };
    const timer: MessageCause = { ...nodeWatch, timer: 'gate-wait' };
    it.each([
      { name: "the node's watch event of the same version", a: timer, b: nodeWatch, same: false },
      {
        name: 'the same timer for a later version',
        a: timer,
        b: { ...timer, resourceVersion: '43' },
        same: false,
      },
      {
        name: "another relay's trigger of the same timer and version",
        a: timer,
        b: { ...timer },
        same: true,
      },
    ])('against $name: same id is $same', ({ a, b, same }) => {
      expect(
        messageDeduplicationId(aNodeMessage('n1', a)) === messageDeduplicationId(aNodeMessage('n1', b)),
      ).toBe(same);
    });

    it('leaves the id of a watch event without a timer as it was before timers', () => {
      expect(messageDeduplicationId(aNodeMessage('n1', nodeWatch))).toBe(
        'node:watch:dce1c1f601063541ca0107b0f5f0d352746108d8ee43d063a5738a2665c9ec5e',
      );
    });
  });

  it('is at most 128 allowed characters even for long names', () => {
    const id = messageDeduplicationId(
      aPair(longName, watch, { namespace: longName, name: longName, uid: longName }),
    );
    expect(id.length).toBeLessThanOrEqual(MAX_FIFO_ID_LENGTH);
    expect(id).toMatch(/^pair:watch:[0-9a-f]{64}$/);
  });
});
