/**
 * `rolloutSlot` on a watch trigger: kept when a relay sets it, absent (false) in the triggers of
 * older relays and other senders, and refused when it is not a boolean.
 */
import { describe, expect, it } from 'vitest';
import { parseTrigger } from '../../lib/messages/parse-trigger.ts';

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
  changes: ['ready'],
};

const body = (detail: Record<string, unknown>) =>
  JSON.stringify({
    version: '0',
    id: 'evt-1',
    'detail-type': 'Kubernetes Watch Event',
    source: 'everynode.relay',
    time: '2026-01-01T00:00:00Z',
    detail,
  });

describe('rolloutSlot on a watch trigger', () => {
  it('is kept when set', () => {
    const result = parseTrigger(body({ ...podEvent, rolloutSlot: true }));
    expect(result.ok && result.trigger.type === 'watch' && result.trigger.watch.rolloutSlot).toBe(true);
  });

  it('is absent in a trigger of an older relay, which stays valid', () => {
    const result = parseTrigger(body(podEvent));
    expect(result).toMatchObject({ ok: true, trigger: { type: 'watch' } });
    if (result.ok && result.trigger.type === 'watch')
      expect(result.trigger.watch.rolloutSlot).toBeUndefined();
  });

  it('is refused when not a boolean', () => {
    const result = parseTrigger(body({ ...podEvent, rolloutSlot: 'true' }));
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.reason).toMatch(/^invalid watch event detail: .*rolloutSlot/);
  });
});
