/**
 * Sends messages to an SQS queue in the batches SendMessageBatch takes (ten messages, 256 KiB),
 * retrying the entries SQS reports as failed when the failure is the sender's to retry.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { EverynodeError } from '../errors/everynode-error.ts';
import { sizeBatches } from './size-batches.ts';

/** The most messages one SendMessageBatch call takes. */
export const SEND_MESSAGE_BATCH = 10;

/**
 * 256 KiB, the bound on the summed payload (bodies and attributes; everynode sends no attributes)
 * of one SendMessageBatch call, and so on one message.
 */
export const SEND_MESSAGE_MAX_BYTES = 262_144;

/** One message to send; group and deduplication ids are for FIFO queues only. */
export interface OutgoingMessage {
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  /** Standard queues only: SQS holds the message back this long (at most 900 s). */
  readonly delaySeconds?: number;
}

/**
 * Failure to send: a message too large for SQS, a refusal that is the sender's fault, or failures
 * that outlasted the retries; names the queue and the SQS error codes or the size.
 */
export class SendMessagesError extends EverynodeError {
  constructor(message: string, retryable: boolean, options: { cause?: unknown } = {}) {
    super(message, retryable, options);
  }
}

const maxAttempts = 3;

/**
 * Sends every message, in order, in batches of at most {@link SEND_MESSAGE_BATCH} messages and
 * {@link SEND_MESSAGE_MAX_BYTES} of bodies; resolves when SQS accepted all of them, rejects naming
 * what it refused. A body too large for SQS rejects, not retryable, before its batch is sent.
 */
export async function sendMessages(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly OutgoingMessage[],
): Promise<void> {
  const batches = sizeBatches(messages, {
    maxCount: SEND_MESSAGE_BATCH,
    maxBytes: SEND_MESSAGE_MAX_BYTES,
    sizeOf: bodySize,
  });
  for (const batch of batches) {
    refuseOversized(batch, queueUrl);
    await sendBatch(sqs, queueUrl, batch.map(toEntry));
  }
}

function bodySize(message: Readonly<OutgoingMessage>): number {
  return Buffer.byteLength(message.body, 'utf8');
}

/** Refuses, for good, a message no SQS call can take, before anything of its batch is sent. */
function refuseOversized(messages: readonly OutgoingMessage[], queueUrl: string): void {
  for (const message of messages) {
    const size = bodySize(message);
    if (size <= SEND_MESSAGE_MAX_BYTES) continue;
    throw new SendMessagesError(
      `sending a message of ${size} bytes to ${queueUrl}: SQS takes at most ${SEND_MESSAGE_MAX_BYTES}`,
      false,
    );
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
      throw new SendMessagesError(
        `sending ${failed.length} message(s) to ${queueUrl}: ${codes}`,
        fatal.length === 0,
      );
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
