/**
 * The queue ports of the pipeline over SQS: work messages to the FIFO work queue, delayed requeues
 * through the ingress queue, poison messages to the FIFO work DLQ.
 */
import { randomUUID } from 'node:crypto';
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
 * unknown), with a `reason` attribute; a body too large to send beside its attributes is cut to a
 * prefix, its size and hash recorded (`deadLetterMessage`). Every call is kept: each dead-lettering
 * has its own de-duplication id ({@link deadLetterDeduplicationId}).
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
          MessageDeduplicationId: deadLetterDeduplicationId(),
          MessageAttributes: { ...letter.attributes },
        }),
      );
    },
  };
}

/**
 * The FIFO `MessageDeduplicationId` of one dead-lettering: `dead-letter:<random UUID>`, new for
 * every call of `deadLetter`.
 *
 * SQS drops, without an error, a message whose de-duplication id it has seen on the queue in the
 * last five minutes — even one since received and deleted. An id derived from the body (its
 * SHA-256, as it was) therefore lost dead-letters: the second of two identical poison bodies, and a
 * message redriven (`everynode redrive`) and dead-lettered again within five minutes, which then
 * vanished from both queues. A dead-lettering is an event, not content, so its id is unique to it.
 *
 * It is made once per call, before the request: the SDK's own retries of that one SendMessage
 * resend the same input, so a request that reached SQS but whose answer was lost is kept once. A
 * new dead-lettering of the same record — its Lambda invocation failed after the send and the
 * record came back — gets a new id and so a second letter: a duplicate in the DLQ is harmless, a
 * dropped one is lost work. The source record's messageId with its ApproximateReceiveCount would
 * behave the same (a redelivery raises the count), but `DeadLetterSender` is given the body only,
 * and a record without an id would still need a random one.
 */
export function deadLetterDeduplicationId(): string {
  return `dead-letter:${randomUUID()}`;
}
