/**
 * Moves dead-lettered messages back to their source queue. On AWS this is one
 * `StartMessageMoveTask`; where the queue service does not offer it (fauxqs, some emulators), the
 * messages are received, sent again with their FIFO group and a fresh deduplication id, and only
 * then deleted from the DLQ, so a crash in between duplicates a message but never loses one.
 */
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { sendMessages } from './send-messages.ts';

export interface RedriveOptions {
  readonly dlqUrl: string;
  readonly dlqArn?: string;
  readonly targetUrl: string;
  readonly targetArn?: string;
  /** Stop after this many messages (the copy path only). */
  readonly limit?: number;
}

/** What a redrive did: a started move task (AWS) or the number of messages copied back. */
export type RedriveResult = { mode: 'move-task'; taskHandle: string } | { mode: 'copied'; moved: number };

/** Redrives the DLQ into the target queue, preferring the service's own move task. */
export async function redrive(sqs: SQSClient, options: Readonly<RedriveOptions>): Promise<RedriveResult> {
  if (options.dlqArn && options.targetArn) {
    try {
      const task = await sqs.send(
        new StartMessageMoveTaskCommand({ SourceArn: options.dlqArn, DestinationArn: options.targetArn }),
      );
      return { mode: 'move-task', taskHandle: task.TaskHandle ?? '' };
    } catch (error) {
      if (!isUnsupported(error))
        throw new Error(`starting a message move task from ${options.dlqArn}`, { cause: error });
    }
  }
  return { mode: 'copied', moved: await copyBack(sqs, options) };
}

async function copyBack(sqs: SQSClient, options: Readonly<RedriveOptions>): Promise<number> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let moved = 0;
  while (moved < limit) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.dlqUrl,
        MaxNumberOfMessages: Math.min(10, limit - moved),
        WaitTimeSeconds: 0,
        VisibilityTimeout: 30,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) break;
    await sendMessages(sqs, options.targetUrl, messages.map(toRedriven));
    for (const m of messages) {
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: options.dlqUrl, ReceiptHandle: m.ReceiptHandle ?? '' }),
      );
    }
    moved += messages.length;
  }
  return moved;
}

function toRedriven(message: Message): { body: string; groupId?: string; deduplicationId?: string } {
  const groupId = message.Attributes?.MessageGroupId;
  return {
    body: message.Body ?? '',
    ...(groupId ? { groupId, deduplicationId: `redrive-${message.MessageId ?? crypto.randomUUID()}` } : {}),
  };
}

function isUnsupported(error: unknown): boolean {
  const name = error instanceof Error ? error.name : '';
  const text = error instanceof Error ? error.message : String(error);
  return /UnsupportedOperation|InvalidAction|not ?supported|Unknown ?Operation|InvalidParameterValue/i.test(
    `${name} ${text}`,
  );
}
