/**
 * The queue ports of the pipeline over SQS: work messages to the FIFO work queue, delayed requeues
 * through the ingress queue, poison messages to the FIFO work DLQ.
 */
import { createHash } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { messageDeduplicationId } from '../messages/message-deduplication-id.ts';
import { messageGroupId } from '../messages/message-group-id.ts';
import { formatWorkMessage } from '../messages/work-message.ts';
import { delayedIngressMessage } from './delayed-ingress-message.ts';
import { sendMessages } from './send-messages.ts';
import type { DeadLetterSender, RequeueSender, WorkSender } from './work-senders.ts';

/** Sends work to the FIFO queue `queueUrl`: group by `messageGroupId`, de-duplication by the given id or `messageDeduplicationId`. */
export function sqsWorkSender(sqs: SQSClient, queueUrl: string): WorkSender {
  return {
    send: (work) =>
      sendMessages(
        sqs,
        queueUrl,
        work.map(({ message, deduplicationId }) => ({
          body: formatWorkMessage(message),
          groupId: messageGroupId(message),
          deduplicationId: deduplicationId ?? messageDeduplicationId(message),
        })),
      ),
  };
}

/** Sends requeue envelopes to the ingress queue `queueUrl`, delayed by SQS up to 15 minutes. */
export function sqsRequeueSender(sqs: SQSClient, queueUrl: string, clock: () => Date): RequeueSender {
  return {
    requeue: async (message, afterSeconds, deduplicationId) => {
      const now = clock();
      const notBefore = new Date(now.getTime() + Math.max(0, afterSeconds) * 1000);
      await sendMessages(sqs, queueUrl, [delayedIngressMessage(message, notBefore, now, deduplicationId)]);
    },
  };
}

/** The message attribute naming why a message was dead-lettered. */
export const DEAD_LETTER_REASON_ATTRIBUTE = 'reason';

/**
 * Sends poison messages to the FIFO DLQ `queueUrl` with a `reason` attribute, in the original group
 * (or `poison` when unknown), de-duplicated by the body's hash.
 */
export function sqsDeadLetterSender(sqs: SQSClient, queueUrl: string): DeadLetterSender {
  return {
    deadLetter: async (body, reason, groupId) => {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body === '' ? '(empty body)' : body,
          MessageGroupId: groupId || 'poison',
          MessageDeduplicationId: createHash('sha256').update(body).digest('hex'),
          MessageAttributes: {
            [DEAD_LETTER_REASON_ATTRIBUTE]: {
              DataType: 'String',
              StringValue: reason.slice(0, 4096) || 'unknown',
            },
          },
        }),
      );
    },
  };
}
