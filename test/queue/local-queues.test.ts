import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { redrive } from '../../lib/queue/redrive.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type SqsEventSource, startSqsEventSource } from '../../lib/queue/sqs-event-source.ts';

async function depth(queues: LocalQueues, url: string): Promise<number> {
  const answer = await queues.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const a = answer.Attributes ?? {};
  return Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('local queues through the SQS API', () => {
  let queues: LocalQueues | undefined;
  let source: SqsEventSource | undefined;
  afterEach(async () => {
    await source?.stop();
    await queues?.stop();
  });

  it('delivers FIFO batches as SQS events, redelivers failures to the DLQ and redrives them back', async () => {
    queues = await startLocalQueues({ maxReceiveCount: 2, visibilityTimeoutSeconds: 1 });
    const q = queues;
    const seen: string[] = [];
    let healthy = false;
    source = startSqsEventSource({
      sqs: q.sqs,
      queueUrl: q.urls.work,
      handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        seen.push(...event.Records.map((r) => `${r.body}@${r.attributes.MessageGroupId}`));
        const failing = event.Records.filter((r) => r.body === 'poison' && !healthy);
        return { batchItemFailures: failing.map((r) => ({ itemIdentifier: r.messageId })) };
      },
    });
    await sendMessages(q.sqs, q.urls.work, [
      { body: 'a', groupId: 'g1', deduplicationId: 'a' },
      { body: 'poison', groupId: 'g2', deduplicationId: 'p' },
    ]);
    await eventually(async () => (await depth(q, q.urls.workDlq)) === 1);
    expect(seen.filter((s) => s === 'poison@g2')).toHaveLength(2);
    expect(seen).toContain('a@g1');
    expect(await depth(q, q.urls.work)).toBe(0);

    healthy = true;
    const result = await redrive(q.sqs, { dlqUrl: q.urls.workDlq, targetUrl: q.urls.work });
    expect(result).toEqual({ mode: 'copied', moved: 1 });
    await eventually(async () => seen.filter((s) => s === 'poison@g2').length === 3);
    await eventually(
      async () => (await depth(q, q.urls.work)) === 0 && (await depth(q, q.urls.workDlq)) === 0,
    );
  });
});
