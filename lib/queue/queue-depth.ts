/**
 * How many messages a queue holds, from SQS's approximate counts.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** A queue's messages: waiting or in flight (received, not yet deleted), and delayed apart. */
export interface QueueDepth {
  readonly now: number;
  readonly delayed: number;
}

/** The depth of the queue at `url`. */
export async function queueDepth(sqs: SQSClient, url: string): Promise<QueueDepth> {
  const answer = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const a = answer.Attributes ?? {};
  return {
    now: Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}
