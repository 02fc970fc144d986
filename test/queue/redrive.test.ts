import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageDeduplicationId } from '../../lib/messages/message-deduplication-id.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { redrive } from '../../lib/queue/redrive.ts';
import { sqsDeadLetterSender, sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import { type DeadLetteringConsumer, startDeadLetteringConsumer, until } from './reconcile-dead-letters.ts';

const POISON = ['{"v":1,"kind":"teleport"}', 'not json', '{"v":9}', '{"v":1,"kind":"pair"}'];

describe('redrive on fauxqs, with FIFO de-duplication', () => {
  let queues: LocalQueues;
  let consumer: DeadLetteringConsumer | undefined;
  beforeEach(async () => {
    queues = await startLocalQueues({ maxReceiveCount: 2, visibilityTimeoutSeconds: 1 });
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    await queues?.stop();
  });

  const depth = async (url: string) => (await queueDepth(queues.sqs, url)).now;

  /** Takes every message off the work queue, as a consumer that deletes what it received. */
  async function takeWork(): Promise<string[]> {
    const bodies: string[] = [];
    for (;;) {
      const answer = await queues.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.urls.work,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        }),
      );
      const messages = answer.Messages ?? [];
      if (messages.length === 0) return bodies;
      for (const m of messages) {
        bodies.push(m.Body ?? '');
        await queues.sqs.send(
          new DeleteMessageCommand({
            QueueUrl: queues.urls.work,
            ReceiptHandle: m.ReceiptHandle ?? '',
          }),
        );
      }
    }
  }

  it('keeps a message dead-lettered again within seconds of its redrive, and reports one moved', async () => {
    const sender = sqsDeadLetterSender(queues.sqs, queues.urls.workDlq);
    const body = '{"v":1,"kind":"teleport"}';
    await sender.deadLetter(body, 'poison message: unknown message kind teleport', 'poison-test');
    const result = await redrive(queues.sqs, { dlqUrl: queues.urls.workDlq, targetUrl: queues.urls.work });
    expect(result).toEqual({ mode: 'copied', moved: 1 });
    expect(await depth(queues.urls.workDlq)).toBe(0);
    expect(await takeWork()).toEqual([body]);

    await sender.deadLetter(body, 'poison message: unknown message kind teleport', 'poison-test');
    expect(await depth(queues.urls.workDlq)).toBe(1);
  });

  it('sends back a message the redrive policy dead-lettered, twice within five minutes', async () => {
    const message: WorkMessage = {
      v: 1,
      kind: 'node',
      cause: { type: 'resync', at: '2026-01-01T00:00:00.000Z' },
      node: { name: 'n1' },
    };
    await sqsWorkSender(queues.sqs, queues.urls.work).send([{ message }]);
    for (const round of [1, 2]) {
      // Received and never deleted: after maxReceiveCount receives the queue moves it to the DLQ,
      // with the work message's own content-derived de-duplication id.
      await until(`round ${round}: the work is dead-lettered by the redrive policy`, async () => {
        await queues.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queues.urls.work, VisibilityTimeout: 0, WaitTimeSeconds: 0 }),
        );
        return (await depth(queues.urls.workDlq)) === 1;
      });
      const result = await redrive(queues.sqs, { dlqUrl: queues.urls.workDlq, targetUrl: queues.urls.work });
      expect(result).toEqual({ mode: 'copied', moved: 1 });
      expect(await depth(queues.urls.work)).toBe(1);
      expect(await depth(queues.urls.workDlq)).toBe(0);
    }
    expect(messageDeduplicationId(message)).toMatch(/^node:resync:/);
  });

  it('moves 4 unparseable messages back to the work queue, and reports 4', async () => {
    const sender = sqsDeadLetterSender(queues.sqs, queues.urls.workDlq);
    for (const body of POISON) await sender.deadLetter(body, 'poison message', 'poison');
    const result = await redrive(queues.sqs, { dlqUrl: queues.urls.workDlq, targetUrl: queues.urls.work });
    expect(result).toEqual({ mode: 'copied', moved: 4 });
    expect(await depth(queues.urls.workDlq)).toBe(0);
    expect((await takeWork()).sort()).toEqual([...POISON].sort());
  });

  it('counts a message received twice (a failed delete, its visibility run out) once, and sends it once', async () => {
    await sqsDeadLetterSender(queues.sqs, queues.urls.workDlq).deadLetter('{"v":9}', 'poison message', 'g1');
    let deletes = 0;
    const lapsing = {
      send: async (command: ReceiveMessageCommand | DeleteMessageCommand) => {
        // Visible again at once, as after a visibility timeout ran out.
        if (command instanceof ReceiveMessageCommand) command.input.VisibilityTimeout = 0;
        if (command instanceof DeleteMessageCommand && ++deletes === 1)
          throw Object.assign(new Error('The receipt handle has expired.'), {
            name: 'ReceiptHandleIsInvalid',
          });
        return queues.sqs.send(command as ReceiveMessageCommand);
      },
    } as unknown as SQSClient;
    const result = await redrive(lapsing, { dlqUrl: queues.urls.workDlq, targetUrl: queues.urls.work });
    expect(result).toEqual({ mode: 'copied', moved: 1 });
    expect(deletes).toBe(2);
    expect(await depth(queues.urls.workDlq)).toBe(0);
    expect(await takeWork()).toEqual(['{"v":9}']);
  });

  it('moves 4 unparseable messages once while the reconcile handler dead-letters them again', async () => {
    // Letters the dead-letter sender left more than five minutes ago: their de-duplication ids are
    // no longer remembered by SQS.
    for (const [i, body] of POISON.entries()) {
      await queues.sqs.send(
        new SendMessageCommand({
          QueueUrl: queues.urls.workDlq,
          MessageBody: body,
          MessageGroupId: `poison-${i}`,
          MessageDeduplicationId: `long-ago-${i}`,
          MessageAttributes: { reason: { DataType: 'String', StringValue: 'poison message' } },
        }),
      );
    }
    const live = startDeadLetteringConsumer(queues);
    consumer = live;
    // A redrive slower than the pipeline: each receive after the first waits until the reconcile
    // handler has taken what the redrive sent back off the work queue and dead-lettered it again.
    let receives = 0;
    let sentBack = 0;
    const slowRedrive = {
      send: async (command: ReceiveMessageCommand | SendMessageBatchCommand) => {
        if (command instanceof ReceiveMessageCommand && ++receives > 1)
          await until(
            'what was sent back is dead-lettered again',
            () => live.deadLettered.length >= sentBack,
          );
        if (command instanceof SendMessageBatchCommand) sentBack += command.input.Entries?.length ?? 0;
        return queues.sqs.send(command as ReceiveMessageCommand);
      },
    } as unknown as SQSClient;

    const result = await redrive(slowRedrive, { dlqUrl: queues.urls.workDlq, targetUrl: queues.urls.work });
    expect(result).toEqual({ mode: 'copied', moved: 4 });
    await until('the DLQ holds the four again', async () => (await depth(queues.urls.workDlq)) === 4);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await depth(queues.urls.workDlq)).toBe(4);
    expect(await depth(queues.urls.work)).toBe(0);
    expect([...live.deadLettered].sort()).toEqual([...POISON].sort());
  });
});
