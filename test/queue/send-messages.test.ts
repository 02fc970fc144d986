import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import {
  type OutgoingMessage,
  SEND_MESSAGE_MAX_BYTES,
  SendMessagesError,
  sendMessages,
} from '../../lib/queue/send-messages.ts';

/** `n` messages on one FIFO group whose bodies weigh `bytes` in UTF-8 ('é' is two bytes). */
const messages = (n: number, bytes: number): OutgoingMessage[] =>
  Array.from({ length: n }, (_, i) => {
    const head = `${i}:`;
    return { body: head + 'é'.repeat((bytes - head.length) / 2), groupId: 'g', deduplicationId: `m${i}` };
  });

/** Receives and deletes what the FIFO queue holds, in its order, until it has `count` bodies. */
async function drain(queues: LocalQueues, url: string, count: number): Promise<string[]> {
  const bodies: string[] = [];
  while (bodies.length < count) {
    const answer = await queues.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const received = answer.Messages ?? [];
    bodies.push(...received.map((m) => m.Body ?? ''));
    if (received.length === 0) break;
    const entries = received.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle }));
    await queues.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: entries }));
  }
  return bodies;
}

async function depth(queues: LocalQueues, url: string): Promise<number> {
  const answer = await queues.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(answer.Attributes?.ApproximateNumberOfMessages ?? 0);
}

describe('sendMessages to a local SQS queue', () => {
  let queues: LocalQueues;
  /** Bodies of each SendMessageBatch request, as the client sent them. */
  const requests: string[][] = [];
  beforeAll(async () => {
    queues = await startLocalQueues();
    queues.sqs.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Entries?: Array<{ MessageBody?: string }> };
        if (input.Entries?.[0]?.MessageBody !== undefined) {
          requests.push(input.Entries.map((entry) => entry.MessageBody ?? ''));
        }
        return next(args);
      },
      { step: 'initialize', name: 'recordSendBatches' },
    );
  });
  beforeEach(() => {
    requests.length = 0;
  });
  afterAll(async () => queues.stop());

  it('cuts batches by size too, keeping every request within the SQS limit, in order', async () => {
    const sent = messages(10, 40_000);
    await sendMessages(queues.sqs, queues.urls.work, sent);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const bodies of requests) {
      const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body, 'utf8'), 0);
      expect(bytes).toBeLessThanOrEqual(SEND_MESSAGE_MAX_BYTES);
    }
    expect(await drain(queues, queues.urls.work, sent.length)).toEqual(sent.map((m) => m.body));
  });

  it('rejects a body too large for SQS, for good, sending nothing of it', async () => {
    const oversized = { body: 'x'.repeat(SEND_MESSAGE_MAX_BYTES + 1), groupId: 'g', deduplicationId: 'big' };
    const error = await sendMessages(queues.sqs, queues.urls.work, [oversized]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendMessagesError);
    expect((error as SendMessagesError).retryable).toBe(false);
    expect((error as SendMessagesError).message).toContain(`message of ${SEND_MESSAGE_MAX_BYTES + 1} bytes`);
    expect(requests).toEqual([]);
    expect(await depth(queues, queues.urls.work)).toBe(0);
  });
});
