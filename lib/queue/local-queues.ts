/**
 * The pipeline's queues on an embedded SQS-compatible server (fauxqs in library mode): real HTTP,
 * FIFO groups, visibility timeouts and DLQ redrive, reached through `@aws-sdk/client-sqs` exactly
 * as on AWS.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { localSqsClient } from './local-sqs-client.ts';
import type { QueueUrls } from './queue-urls.ts';

export interface LocalQueueOptions {
  /** Receives after which a work message moves to the work DLQ (the Lambda event source's maxReceiveCount). */
  readonly maxReceiveCount?: number;
  /** Seconds a received message stays invisible before it is delivered again. */
  readonly visibilityTimeoutSeconds?: number;
  /** Prefix of the queue names, so several pipelines can share one server. */
  readonly prefix?: string;
}

/** A running local SQS endpoint with the pipeline's queues created. */
export interface LocalQueues {
  readonly endpoint: string;
  readonly sqs: SQSClient;
  readonly urls: QueueUrls;
  stop(): Promise<void>;
}

/** Starts fauxqs on a free loopback port and creates the ingress, work and DLQ queues with redrive. */
export async function startLocalQueues(options: Readonly<LocalQueueOptions> = {}): Promise<LocalQueues> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const sqs = localSqsClient(server.address);
  try {
    const urls = await createPipelineQueues(sqs, options);
    return {
      endpoint: server.address,
      sqs,
      urls,
      stop: async () => {
        sqs.destroy();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw new Error('creating the local pipeline queues', { cause: error });
  }
}

async function createPipelineQueues(
  sqs: SQSClient,
  options: Readonly<LocalQueueOptions>,
): Promise<QueueUrls> {
  const prefix = options.prefix ?? 'everynode';
  const visibility = String(options.visibilityTimeoutSeconds ?? 30);
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const ingressDlq = await createQueue(sqs, `${prefix}-ingress-dlq`, {});
  const workDlq = await createQueue(sqs, `${prefix}-work-dlq.fifo`, { FifoQueue: 'true' });
  const ingress = await createQueue(sqs, `${prefix}-ingress`, {
    VisibilityTimeout: visibility,
    RedrivePolicy: await redrivePolicy(sqs, ingressDlq, maxReceiveCount),
  });
  const work = await createQueue(sqs, `${prefix}-work.fifo`, {
    FifoQueue: 'true',
    VisibilityTimeout: visibility,
    RedrivePolicy: await redrivePolicy(sqs, workDlq, maxReceiveCount),
  });
  return { ingress, ingressDlq, work, workDlq };
}

async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!created.QueueUrl) throw new Error(`creating queue ${name}: no QueueUrl in the answer`);
  return created.QueueUrl;
}

async function redrivePolicy(sqs: SQSClient, dlqUrl: string, maxReceiveCount: number): Promise<string> {
  const answer = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = answer.Attributes?.QueueArn;
  if (!arn) throw new Error(`reading the ARN of ${dlqUrl}`);
  return JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount });
}
