/**
 * The message fields of a node readiness gate change: `gateChange` on a DaemonSet's watch trigger
 * and on a relist's resync trigger, `gateKeys` on the `node` work message — optional, checked, and
 * carried through a requeue.
 */
import { describe, expect, it } from 'vitest';
import { messageDeduplicationId } from '../../lib/messages/message-deduplication-id.ts';
import { parseTrigger } from '../../lib/messages/parse-trigger.ts';
import { parseWorkMessage } from '../../lib/messages/parse-work-message.ts';
import { withRequeueCause } from '../../lib/messages/requeue-envelope.ts';
import { MAX_GATE_CHANGE_KEYS } from '../../lib/messages/trigger.ts';
import { formatWorkMessage, type NodeMessage } from '../../lib/messages/work-message.ts';

const K = 'everynode.dev/not-ready';
const OLD = 'example.com/old-gate';

function anEvent(detailType: string, source: string, detail: unknown) {
  return JSON.stringify({
    version: '0',
    id: 'evt-1',
    'detail-type': detailType,
    source,
    time: '2026-01-01T00:00:00Z',
    detail,
  });
}

const daemonSetEvent = {
  v: 1,
  event: 'MODIFIED',
  kind: 'DaemonSet',
  apiVersion: 'apps/v1',
  name: 'cni',
  namespace: 'kube-system',
  uid: 'uid-ds',
  resourceVersion: '88',
  changes: ['annotations'],
};
const watch = (detail: Record<string, unknown>) =>
  parseTrigger(anEvent('Kubernetes Watch Event', 'everynode.relay', { ...daemonSetEvent, ...detail }));
const resync = (detail: Record<string, unknown>) =>
  parseTrigger(anEvent('Everynode Resync', 'everynode.relay', { v: 1, reason: 'relist', ...detail }));

describe('gateChange on triggers', () => {
  it('is read from a DaemonSet watch event and a relist resync, and absent from older ones', () => {
    const changed = watch({ gateChange: { keys: [OLD, K] } });
    expect(changed.ok && changed.trigger.type === 'watch' && changed.trigger.watch.gateChange).toEqual({
      keys: [OLD, K],
    });
    const older = watch({});
    expect(older.ok && older.trigger.type === 'watch' && older.trigger.watch.gateChange).toBeUndefined();
    const relisted = resync({ gateChange: { keys: [] } });
    expect(relisted.ok && relisted.trigger.type === 'resync' && relisted.trigger.gateChange).toEqual({
      keys: [],
    });
    const scheduled = resync({});
    expect(scheduled.ok && scheduled.trigger.type === 'resync' && 'gateChange' in scheduled.trigger).toBe(
      false,
    );
  });

  it.each([
    { name: 'keys not a list', gateChange: { keys: K } },
    { name: 'no keys', gateChange: {} },
    { name: 'an empty key', gateChange: { keys: [''] } },
    {
      name: 'a key longer than a qualified name',
      gateChange: { keys: [`${'a'.repeat(254)}/${'b'.repeat(63)}`] },
    },
    {
      name: 'more keys than a change names',
      gateChange: { keys: Array.from({ length: 65 }, (_, i) => `k${i}`) },
    },
  ])('refuses a watch trigger whose gateChange has $name', ({ gateChange }) => {
    const parsed = watch({ gateChange });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain('gateChange');
  });

  it('takes as many keys as a change may name', () => {
    const keys = Array.from({ length: MAX_GATE_CHANGE_KEYS }, (_, i) => `example.com/k${i}`);
    expect(watch({ gateChange: { keys } }).ok).toBe(true);
    expect(resync({ gateChange: { keys } }).ok).toBe(true);
  });
});

describe('gateKeys on node work messages', () => {
  const message: NodeMessage = {
    v: 1,
    kind: 'node',
    cause: { type: 'watch', event: 'DELETED', kind: 'DaemonSet', resourceVersion: '88' },
    node: { name: 'n1' },
    gateKeys: [K, OLD],
  };

  it('round-trips through the queue body, and a message without them still reads', () => {
    const parsed = parseWorkMessage(formatWorkMessage(message));
    expect(parsed).toEqual({ ok: true, message });
    const { gateKeys: _, ...without } = message;
    expect(parseWorkMessage(JSON.stringify(without))).toEqual({ ok: true, message: without });
  });

  it('refuses keys that are not gate keys, as a poison message', () => {
    for (const gateKeys of [[''], 'x', [1]]) {
      const parsed = parseWorkMessage(JSON.stringify({ ...message, gateKeys }));
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.reason).toContain('gateKeys');
    }
    expect(() => formatWorkMessage({ ...message, gateKeys: [''] })).toThrow();
  });

  it('keeps the keys on a requeue (they are no facts of state, unlike hints)', () => {
    const again = withRequeueCause(message, 'node readiness gate waits 2s', new Date('2026-01-01T00:00:05Z'));
    expect(again).toMatchObject({ kind: 'node', gateKeys: [K, OLD], cause: { type: 'requeue' } });
  });

  it('leaves the de-duplication id to target and cause: the same fan-out sent twice is one message', () => {
    const { gateKeys: _, ...without } = message;
    expect(messageDeduplicationId(message)).toBe(messageDeduplicationId(without));
    expect(messageDeduplicationId(message)).not.toBe(
      messageDeduplicationId({ ...message, node: { name: 'n2' } }),
    );
  });
});
