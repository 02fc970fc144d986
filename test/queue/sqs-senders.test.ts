import { createHash } from 'node:crypto';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { SEND_MESSAGE_MAX_BYTES } from '../../lib/queue/send-messages.ts';
import { sqsDeadLetterSender, sqsRequeueSender } from '../../lib/queue/sqs-senders.ts';

const LIMIT = SEND_MESSAGE_MAX_BYTES;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sqsDeadLetterSender on fauxqs', () => {
  let queues: LocalQueues;
  beforeAll(async () => {
    queues = await startLocalQueues();
    // fauxqs, like SQS since 2025, defaults to 1 MiB; everynode sends at most 256 KiB
    // (SEND_MESSAGE_MAX_BYTES), so the DLQ is held to that here.
    await queues.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: queues.urls.workDlq,
        Attributes: { MaximumMessageSize: String(LIMIT) },
      }),
    );
  });
  afterAll(async () => queues?.stop());

  async function receiveLetter() {
    const answer = await queues.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queues.urls.workDlq,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    const [message] = answer.Messages ?? [];
    // Deleted, so the next letter of its FIFO group can be received.
    if (message?.ReceiptHandle)
      await queues.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queues.urls.workDlq, ReceiptHandle: message.ReceiptHandle }),
      );
    const attribute = (name: string) => message?.MessageAttributes?.[name]?.StringValue;
    return {
      body: message?.Body,
      group: message?.Attributes?.MessageGroupId,
      reason: attribute('reason'),
      truncated: attribute('truncated'),
      bodyBytes: attribute('bodyBytes'),
      bodySha256: attribute('bodySha256'),
    };
  }

  it('is tested against an emulator that counts attributes in the size limit, as SQS does', async () => {
    const send = queues.sqs.send(
      new SendMessageCommand({
        QueueUrl: queues.urls.workDlq,
        MessageBody: 'x'.repeat(LIMIT),
        MessageGroupId: 'g',
        MessageDeduplicationId: 'raw',
        MessageAttributes: { reason: { DataType: 'String', StringValue: 'r' } },
      }),
    );
    await expect(send).rejects.toThrow(`shorter than ${LIMIT} bytes`);
  });

  it.each([
    {
      name: 'a poison body at the size limit, cut, with its reason, size and hash',
      body: `{"v":1,"kind":"pair","junk":"${'x'.repeat(LIMIT - 31)}"}`,
      truncated: 'true',
    },
    { name: 'a small poison body, whole, with its reason', body: '{"v":9}', truncated: undefined },
  ])('dead-letters $name', async ({ body, truncated }) => {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
    const reason = `poison message: ${'unknown message version 9; '.repeat(400)}`;
    await sqsDeadLetterSender(queues.sqs, queues.urls.workDlq).deadLetter(body, reason, 'pair:g1');
    const letter = await receiveLetter();
    expect(letter.group).toBe('pair:g1');
    expect(letter.reason).toBe(reason.slice(0, 4096));
    expect(body.startsWith(letter.body ?? '-')).toBe(true);
    expect(letter.truncated).toBe(truncated);
    if (truncated) {
      expect(letter.bodyBytes).toBe(String(Buffer.byteLength(body)));
      expect(letter.bodySha256).toBe(sha256(body));
    } else {
      expect(letter.body).toBe(body);
    }
  });
});

describe('sqsDeadLetterSender keeps every dead-letter (FIFO de-duplication)', () => {
  let queues: LocalQueues;
  beforeAll(async () => {
    queues = await startLocalQueues();
  });
  afterAll(async () => queues?.stop());

  it('keeps two dead-letters of identical bodies, in one group and in two', async () => {
    const sender = sqsDeadLetterSender(queues.sqs, queues.urls.workDlq);
    await sender.deadLetter('{"v":9}', 'poison message: unknown message version 9', 'pair:g1');
    await sender.deadLetter('{"v":9}', 'poison message: unknown message version 9', 'pair:g1');
    await sender.deadLetter('{"v":9}', 'poison message: unknown message version 9', 'pair:g2');
    await sender.deadLetter('{"v":9}', 'poison message: unknown message version 9');
    expect((await queueDepth(queues.sqs, queues.urls.workDlq)).now).toBe(4);
  });
});

describe('sqsRequeueSender', () => {
  const message: WorkMessage = {
    v: 1,
    kind: 'node',
    cause: { type: 'resync', at: '2026-01-01T00:00:00.000Z' },
    node: { name: 'n1' },
  };
  const now = new Date('2026-01-01T00:00:00.000Z');

  it.each([
    { name: 'a wait under 15 minutes', afterSeconds: 30, due: 30, delaySeconds: 30 },
    { name: 'a wait of hours', afterSeconds: 7200, due: 7200, delaySeconds: 900 },
    { name: 'a wait of exactly a day', afterSeconds: 86_400, due: 86_400, delaySeconds: 900 },
    { name: 'a wait of ten days, cut to a day', afterSeconds: 864_000, due: 86_400, delaySeconds: 900 },
    {
      name: 'an endless wait, cut to a day',
      afterSeconds: Number.POSITIVE_INFINITY,
      due: 86_400,
      delaySeconds: 900,
    },
    {
      name: 'a wait that is not a number, as none',
      afterSeconds: Number.NaN,
      due: 0,
      delaySeconds: undefined,
    },
  ])(
    'sends $name to the ingress queue due at most a day ahead',
    async ({ afterSeconds, due, delaySeconds }) => {
      const sent: SendMessageBatchCommand['input'][] = [];
      const sqs = {
        send: async (command: SendMessageBatchCommand) => {
          sent.push(command.input);
          return { Successful: [], Failed: [] };
        },
      } as unknown as SQSClient;
      await sqsRequeueSender(sqs, 'ingress-url', () => now).requeue(message, afterSeconds);
      const entry = sent[0]?.Entries?.[0];
      const parsed = parseRequeueEnvelope(entry?.MessageBody ?? '');
      expect(parsed.ok && parsed.envelope.notBefore).toBe(new Date(now.getTime() + due * 1000).toISOString());
      expect(entry?.DelaySeconds).toBe(delaySeconds);
    },
  );
});
