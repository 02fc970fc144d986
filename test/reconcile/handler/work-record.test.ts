import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { formatWorkMessage, type WorkMessage } from '../../../lib/messages/work-message.ts';
import { planBatch, workKey } from '../../../lib/reconcile/handler/work-record.ts';
import { pairWorkMessage as pair } from '../../support/pair-work-message.ts';

describe('batch planning', () => {
  const record = (messageId: string, message: WorkMessage | string): SQSRecord =>
    ({ messageId, body: typeof message === 'string' ? message : formatWorkMessage(message) }) as SQSRecord;

  it('runs the first record of each work key and marks repeated keys', () => {
    const later = { ...pair, cause: { type: 'resync' as const, at: '2026-01-01T00:00:01.000Z' } };
    const other = { ...pair, node: { name: 'n2' } };
    const plan = planBatch([
      record('a', pair),
      record('b', 'garbage'),
      record('c', later),
      record('d', other),
    ]);
    expect(plan.runner.get(workKey(pair))).toBe('a');
    expect(plan.runner.get(workKey(other))).toBe('d');
    expect([...plan.repeated]).toEqual([workKey(pair)]);
  });

  it.each([
    {
      name: 'a recreated DaemonSet is other work',
      a: pair,
      b: { ...pair, daemonSet: { ...pair.daemonSet, uid: 'u2' } },
      same: false,
    },
    {
      name: 'another cause is the same work',
      a: pair,
      b: { ...pair, cause: { type: 'resync' as const, at: 'x' } },
      same: true,
    },
  ])('$name', ({ a, b, same }) => {
    expect(workKey(a) === workKey(b as WorkMessage)).toBe(same);
  });
});
