/**
 * The queue ports of the pipeline over SQS: work messages to the FIFO work queue, delayed requeues
 * through the ingress queue, poison messages to the FIFO work DLQ.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { messageDeduplicationId } from '../messages/message-deduplication-id.ts';
import { messageGroupId } from '../messages/message-group-id.ts';
import { requeueNotBefore } from '../messages/requeue-envelope.ts';
import { formatWorkMessage } from '../messages/work-message.ts';
import { deadLetterMessage } from './dead-letter-message.ts';
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

/**
 * Sends requeue envelopes to the ingress queue `queueUrl`, delayed by SQS up to 15 minutes; a wait
 * longer than a day is cut to a day (`requeueNotBefore`, `MAX_REQUEUE_WAIT_SECONDS`).
 */
export function sqsRequeueSender(sqs: SQSClient, queueUrl: string, clock: () => Date): RequeueSender {
  return {
    requeue: async (message, afterSeconds, deduplicationId) => {
      const now = clock();
      const notBefore = requeueNotBefore(afterSeconds, now);
      await sendMessages(sqs, queueUrl, [delayedIngressMessage(message, notBefore, now, deduplicationId)]);
    },
  };
}

/**
 * Sends poison messages to the FIFO DLQ `queueUrl` in the original group (or `poison` when
 * unknown), de-duplicated by the body's SHA-256, with a `reason` attribute; a body too large to
 * send beside its attributes is cut to a prefix, its size and hash recorded (`deadLetterMessage`).
 */
export function sqsDeadLetterSender(sqs: SQSClient, queueUrl: string): DeadLetterSender {
  return {
    deadLetter: async (body, reason, groupId) => {
      const letter = deadLetterMessage(body, reason);
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: letter.body,
          MessageGroupId: groupId || 'poison',
          MessageDeduplicationId: letter.bodySha256,
          MessageAttributes: { ...letter.attributes },
        }),
      );
    },
  };
}
