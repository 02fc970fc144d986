import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type SqsEventSource, startSqsEventSource } from '../../lib/queue/sqs-event-source.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the ReceiveMessage requests `queues`' client sends, and how many are open at once. */
function watchReceives(queues: LocalQueues): { total(): number; maxOpen(): number } {
  let [total, open, maxOpen] = [0, 0, 0];
  queues.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== ReceiveMessageCommand.name) return next(args);
      total++;
      open++;
      maxOpen = Math.max(maxOpen, open);
      try {
        return await next(args);
      } finally {
        open--;
      }
    },
    { step: 'initialize', name: 'countReceives' },
  );
  return { total: () => total, maxOpen: () => maxOpen };
}

describe('the local SQS event source', () => {
  let queues: LocalQueues | undefined;
  let source: SqsEventSource | undefined;
  afterEach(async () => {
    await source?.stop();
    await queues?.stop();
  });

  it('runs up to `concurrency` invocations at once from a few receives, not one receive per slot', async () => {
    queues = await startLocalQueues({ maxReceiveCount: 5, visibilityTimeoutSeconds: 30 });
    const q = queues;
    const receives = watchReceives(q);
    let [running, maxRunning, handled] = [0, 0, 0];
    source = startSqsEventSource({
      sqs: q.sqs,
      queueUrl: q.urls.work,
      batchSize: 1,
      concurrency: 6,
      handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await pause(300);
        running--;
        handled += event.Records.length;
        return { batchItemFailures: [] };
      },
    });
    await sendMessages(
      q.sqs,
      q.urls.work,
      Array.from({ length: 12 }, (_, i) => ({ body: `m${i}`, groupId: `g${i}`, deduplicationId: `d${i}` })),
    );
    const deadline = Date.now() + 15_000;
    while (handled < 12 && Date.now() < deadline) await pause(50);
    expect(handled).toBe(12);
    // Six slots filled from two receives at a time: the batches overlapped up to the limit.
    expect(maxRunning).toBe(6);
    expect(receives.maxOpen()).toBe(2);
  });

  it('answers one message with one invocation, and idles on two long polls', async () => {
    queues = await startLocalQueues({ maxReceiveCount: 5, visibilityTimeoutSeconds: 30 });
    const q = queues;
    const receives = watchReceives(q);
    const seen: string[] = [];
    source = startSqsEventSource({
      sqs: q.sqs,
      queueUrl: q.urls.work,
      concurrency: 16,
      handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        seen.push(...event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      },
    });
    await pause(200);
    const before = receives.total();
    await sendMessages(q.sqs, q.urls.work, [{ body: 'one', groupId: 'g', deduplicationId: 'one' }]);
    const deadline = Date.now() + 5_000;
    while (seen.length === 0 && Date.now() < deadline) await pause(10);
    await pause(100);
    expect(seen).toEqual(['one']);
    // The embedded queue wakes every open receive for a message: only the two pollers answer.
    expect(receives.total() - before).toBeLessThanOrEqual(4);
    expect(receives.maxOpen()).toBe(2);
  });
});
