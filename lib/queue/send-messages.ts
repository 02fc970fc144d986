/**
 * Sends messages to an SQS queue in batches of ten (the SendMessageBatch limit), retrying the
 * entries SQS reports as failed when the failure is the sender's to retry.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** One message to send; group and deduplication ids are for FIFO queues only. */
export interface OutgoingMessage {
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  /** Standard queues only: SQS holds the message back this long (at most 900 s). */
  readonly delaySeconds?: number;
}

/** Failure to send after retries; names the queue and the SQS error codes. */
export class SendMessagesError extends Error {
  override readonly name = 'SendMessagesError';
}

const maxAttempts = 3;

/** Sends every message; resolves when SQS accepted all of them, rejects naming what it refused. */
export async function sendMessages(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly OutgoingMessage[],
): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    await sendBatch(sqs, queueUrl, messages.slice(start, start + 10).map(toEntry));
  }
}

async function sendBatch(
  sqs: SQSClient,
  queueUrl: string,
  entries: SendMessageBatchRequestEntry[],
): Promise<void> {
  let pending = entries;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const answer = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
    const failed = answer.Failed ?? [];
    if (failed.length === 0) return;
    const fatal = failed.filter((f) => f.SenderFault);
    if (fatal.length > 0 || attempt >= maxAttempts) {
      const codes = failed.map((f) => `${f.Id}: ${f.Code} ${f.Message ?? ''}`.trim()).join('; ');
      throw new SendMessagesError(`sending ${failed.length} message(s) to ${queueUrl}: ${codes}`);
    }
    const ids = new Set(failed.map((f) => f.Id));
    pending = pending.filter((e) => ids.has(e.Id));
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
  }
}

function toEntry(message: OutgoingMessage, index: number): SendMessageBatchRequestEntry {
  return {
    Id: String(index),
    MessageBody: message.body,
    ...(message.groupId ? { MessageGroupId: message.groupId } : {}),
    ...(message.deduplicationId ? { MessageDeduplicationId: message.deduplicationId } : {}),
    ...(message.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(message.delaySeconds)) } : {}),
  };
}
