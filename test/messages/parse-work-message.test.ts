import { describe, expect, it } from 'vitest';
import { parseWorkMessage } from '../../lib/messages/parse-work-message.ts';
import { PoisonMessageError } from '../../lib/messages/poison-message-error.ts';
import { formatWorkMessage, type WorkMessage } from '../../lib/messages/work-message.ts';

const watchCause = { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '42' } as const;

function aPairMessage(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    kind: 'pair',
    daemonSet: { namespace: 'kube-system', name: 'fluentd', uid: 'uid-ds' },
    node: { name: 'n1' },
    cause: watchCause,
    ...overrides,
  };
}

const validCases: { name: string; body: Record<string, unknown> }[] = [
  { name: 'pair from a watch event', body: aPairMessage() },
  {
    name: 'pair with hints',
    body: aPairMessage({
      hints: {
        observedAt: '2026-01-01T00:00:00Z',
        daemonSet: { resourceVersion: '7', generation: 2, revisionHash: 'abc' },
        node: { name: 'n1', resourceVersion: '3', labels: { a: 'b' } },
        pods: [{ name: 'p', uid: 'u', resourceVersion: '9', phase: 'Running', ready: true }],
      },
    }),
  },
  {
    name: 'pair with hints of a gone node',
    body: aPairMessage({
      hints: {
        observedAt: '2026-01-01T00:00:00.123+02:00',
        daemonSet: { resourceVersion: '7', revisionHash: 'abc' },
        node: null,
        pods: [],
      },
    }),
  },
  {
    name: 'daemonset without uid from a resync',
    body: {
      v: 1,
      kind: 'daemonset',
      daemonSet: { namespace: 'ns', name: 'ds' },
      cause: { type: 'resync', at: '2026-01-01T00:00:00Z' },
    },
  },
  {
    name: 'node from an EC2 event',
    body: {
      v: 1,
      kind: 'node',
      node: { name: 'ip-10-0-0-1.ec2.internal' },
      cause: { type: 'ec2', eventId: 'e-1', instanceId: 'i-0abc', state: 'terminated' },
    },
  },
  {
    name: 'requeue with attempt and managed kind',
    body: aPairMessage({
      managedKind: 'apps/v1',
      cause: {
        type: 'requeue',
        reason: 'failed pod backoff',
        attempt: 3,
        requestedAt: '2026-01-01T00:00:00Z',
      },
    }),
  },
  { name: 'replay', body: aPairMessage({ cause: { type: 'replay', replayName: 'r1', eventId: 'e-1' } }) },
  { name: 'unknown extra field ignored', body: aPairMessage({ future: true }) },
];

const invalidCases: { name: string; body: string; reason: RegExp }[] = [
  { name: 'not JSON', body: '{"v":1,', reason: /^body is not JSON/ },
  { name: 'JSON array', body: '[]', reason: /^body is JSON an array, not an object$/ },
  { name: 'JSON null', body: 'null', reason: /^body is JSON null, not an object$/ },
  { name: 'JSON string', body: '"pair"', reason: /^body is JSON a string, not an object$/ },
  {
    name: 'missing version',
    body: JSON.stringify({ ...aPairMessage(), v: undefined }),
    reason: /^unknown message version undefined/,
  },
  {
    name: 'unknown version',
    body: JSON.stringify(aPairMessage({ v: 2 })),
    reason: /^unknown message version 2 \(this reconciler reads v 1\)$/,
  },
  {
    name: 'version as string',
    body: JSON.stringify(aPairMessage({ v: '1' })),
    reason: /^unknown message version "1"/,
  },
  {
    name: 'unknown kind',
    body: JSON.stringify(aPairMessage({ kind: 'pod' })),
    reason: /^unknown message kind "pod" \(expected one of pair, daemonset, node\)$/,
  },
  {
    name: 'pair without uid',
    body: JSON.stringify(aPairMessage({ daemonSet: { namespace: 'a', name: 'b' } })),
    reason: /^invalid pair message: .*daemonSet\.uid/,
  },
  {
    name: 'unknown cause',
    body: JSON.stringify(aPairMessage({ cause: { type: 'cron' } })),
    reason: /^invalid pair message: .*cause\.type/,
  },
  {
    name: 'watch cause with a BOOKMARK',
    body: JSON.stringify(aPairMessage({ cause: { ...watchCause, event: 'BOOKMARK' } })),
    reason: /^invalid pair message: .*cause\.event/,
  },
  {
    name: 'requeue without requestedAt',
    body: JSON.stringify(aPairMessage({ cause: { type: 'requeue', reason: 'x' } })),
    reason: /^invalid pair message: .*cause\.requestedAt/,
  },
  {
    name: 'EC2 cause with a bad instance id',
    body: JSON.stringify(
      aPairMessage({ cause: { type: 'ec2', eventId: 'e', instanceId: 'abc', state: 'running' } }),
    ),
    reason: /^invalid pair message: .*cause\.instanceId/,
  },
  {
    name: 'hints with a bad time',
    body: JSON.stringify(
      aPairMessage({
        hints: {
          observedAt: 'yesterday',
          daemonSet: { resourceVersion: '1', revisionHash: 'h' },
          node: null,
          pods: [],
        },
      }),
    ),
    reason: /^invalid pair message: .*hints\.observedAt/,
  },
  {
    name: 'unknown managed kind',
    body: JSON.stringify(aPairMessage({ managedKind: 'v1' })),
    reason: /managedKind/,
  },
  {
    name: 'empty node name',
    body: JSON.stringify(aPairMessage({ node: { name: '' } })),
    reason: /node\.name/,
  },
];

describe('parseWorkMessage', () => {
  it.each(validCases)('accepts $name', ({ body }) => {
    const result = parseWorkMessage(JSON.stringify(body));
    expect(result).toMatchObject({ ok: true, message: { v: 1, kind: body.kind } });
  });

  it.each(invalidCases)('rejects $name with its reason', ({ body, reason }) => {
    const result = parseWorkMessage(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('reads back what formatWorkMessage wrote', () => {
    const message = aPairMessage() as WorkMessage;
    expect(parseWorkMessage(formatWorkMessage(message))).toEqual({ ok: true, message });
  });

  it('refuses to format a message the reconciler would reject', () => {
    expect(() =>
      formatWorkMessage({ ...(aPairMessage() as WorkMessage), v: 2 } as unknown as WorkMessage),
    ).toThrow();
  });
});

describe('PoisonMessageError', () => {
  it('is never retryable and keeps the reason', () => {
    const error = new PoisonMessageError('unknown message kind "pod"', { messageId: 'm-1' });
    expect(error).toMatchObject({ retryable: false, reason: 'unknown message kind "pod"', messageId: 'm-1' });
    expect(error.message).toBe(
      'rejecting message m-1 that can never be processed: unknown message kind "pod"',
    );
    expect(error.name).toBe('PoisonMessageError');
  });
});
