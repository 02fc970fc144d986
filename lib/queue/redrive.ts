/**
 * Moves dead-lettered messages back to their source queue. On AWS this is one
 * `StartMessageMoveTask`; where the queue service does not offer it (fauxqs, some emulators), the
 * messages are received, sent again with their FIFO group and a fresh deduplication id, and only
 * then deleted from the DLQ, so a crash in between duplicates a message but never loses one.
 */
import { randomUUID } from 'node:crypto';
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

/**
 * What a redrive did: a started move task (AWS), or the messages copied back — `moved` counts each
 * DLQ message once, and only once it was sent to the target AND deleted from the DLQ;
 * `notDeleted` counts those sent back whose delete failed: they are still in the DLQ (hidden for
 * {@link COPY_VISIBILITY_SECONDS}), and a redrive within five minutes sends them with the same
 * de-duplication id, so SQS does not run them twice.
 */
export type RedriveResult =
  | { mode: 'move-task'; taskHandle: string }
  | { mode: 'copied'; moved: number; notDeleted?: number };

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
  const { moved, notDeleted } = await copyBack(sqs, options);
  return { mode: 'copied', moved, ...(notDeleted > 0 ? { notDeleted } : {}) };
}

/** Seconds a received DLQ message stays hidden from other receives while it is copied. */
const COPY_VISIBILITY_SECONDS = 30;

/**
 * Copies the messages that were in the DLQ when the redrive began. A message SQS stamps as sent
 * after that (`SentTimestamp`) is a new dead-letter — often one this redrive just sent back and the
 * pipeline dead-lettered again — and is left in the DLQ: moving it again would loop for as long as
 * the pipeline keeps dead-lettering, counting one message many times. Left received, it stays
 * hidden for {@link COPY_VISIBILITY_SECONDS} (no ChangeMessageVisibility: the operator's rights do
 * not include it), so the loop does not receive it again, nor its FIFO group behind it, newer
 * still. The start is this process's clock and `SentTimestamp` the queue's; on one machine
 * (fauxqs) they agree, and a skew can only leave an old letter for the next redrive or move a new
 * one once, never lose one. A message received twice (its delete failed, its visibility ran out)
 * is sent again with the same de-duplication id, which SQS drops, and counted once, when deleted.
 */
async function copyBack(
  sqs: SQSClient,
  options: Readonly<RedriveOptions>,
): Promise<{ moved: number; notDeleted: number }> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const startedAt = Date.now();
  const moved = new Set<string>();
  const notDeleted = new Set<string>();
  while (moved.size < limit) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.dlqUrl,
        MaxNumberOfMessages: Math.min(10, limit - moved.size),
        WaitTimeSeconds: 0,
        VisibilityTimeout: COPY_VISIBILITY_SECONDS,
        MessageSystemAttributeNames: ['MessageGroupId', 'SentTimestamp'],
      }),
    );
    const messages = (received.Messages ?? []).map(withId);
    if (messages.length === 0) break;
    const old = messages.filter((m) => !sentAfter(m, startedAt));
    if (old.length === 0) continue;
    await sendMessages(sqs, options.targetUrl, old.map(toRedriven));
    for (const m of old) {
      try {
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: options.dlqUrl, ReceiptHandle: m.ReceiptHandle ?? '' }),
        );
        moved.add(m.id);
        notDeleted.delete(m.id);
      } catch {
        if (!moved.has(m.id)) notDeleted.add(m.id);
      }
    }
  }
  return { moved: moved.size, notDeleted: notDeleted.size };
}

type IdentifiedMessage = Message & { readonly id: string };

/** `message` with the id it is counted by: its MessageId, or its receipt handle without one. */
function withId(message: Message): IdentifiedMessage {
  return { ...message, id: message.MessageId ?? message.ReceiptHandle ?? randomUUID() };
}

/** True when SQS stamps `message` as sent after `startedAt` (ms since the epoch). */
function sentAfter(message: Message, startedAt: number): boolean {
  const sent = Number(message.Attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > startedAt;
}

/**
 * The redriven copy of a DLQ message: its body and FIFO group, and the de-duplication id
 * `redrive-<DLQ MessageId>`. Not the message's own MessageDeduplicationId (a work message's is
 * derived from its content, `messageDeduplicationId`): SQS remembers ids for five minutes, so a
 * work message dead-lettered by the queue's redrive policy and redriven within five minutes of
 * being sent — or a redrive of the same content sent again — would be dropped, and a redrive is an
 * explicit request to run the work again. Every dead-lettering makes a new DLQ message with a new
 * MessageId, so each redrive of it is new; only the same DLQ message copied twice (received again
 * before its delete, or a redrive run again after a failed delete) shares the id, and SQS keeps it
 * once.
 */
function toRedriven(message: IdentifiedMessage): {
  body: string;
  groupId?: string;
  deduplicationId?: string;
} {
  const groupId = message.Attributes?.MessageGroupId;
  return {
    body: message.Body ?? '',
    ...(groupId ? { groupId, deduplicationId: `redrive-${message.id}` } : {}),
  };
}

function isUnsupported(error: unknown): boolean {
  const name = error instanceof Error ? error.name : '';
  const text = error instanceof Error ? error.message : String(error);
  return /UnsupportedOperation|InvalidAction|not ?supported|Unknown ?Operation|InvalidParameterValue/i.test(
    `${name} ${text}`,
  );
}
