/**
 * The template's queues created in fauxqs as CloudFormation would create them: every
 * `AWS::SQS::Queue` under its physical name with its attributes, dead-letter queues first so a
 * `RedrivePolicy` names an existing queue (by its ARN in fauxqs's account). A queue property this
 * file does not know throws, so a template change the harness cannot honour fails loudly.
 */
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeployedStack } from './deployed-stack.ts';

/** The account fauxqs puts in every queue URL and ARN. */
export const FAUXQS_ACCOUNT = '000000000000';

/** One queue of the template, as deployed and as fauxqs knows it. */
export interface DeployedQueue {
  readonly logicalId: string;
  readonly name: string;
  /** The URL the functions are given (`Ref`): on the gateway. */
  readonly url: string;
  /** The ARN in the deployment's account (`Fn::GetAtt Arn`). */
  readonly arn: string;
  /** fauxqs's own URL of the queue, for direct inspection. */
  readonly fauxqsUrl: string;
  /** fauxqs's ARN of the queue (its account). */
  readonly fauxqsArn: string;
}

/** Properties passed to CreateQueue as attributes, as strings. */
const ATTRIBUTES = [
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'MessageRetentionPeriod',
  'DelaySeconds',
  'MaximumMessageSize',
  'ReceiveMessageWaitTimeSeconds',
];
/** Properties without effect on a local queue (encryption, tags) or handled apart. */
const IGNORED = new Set([
  'QueueName',
  'SqsManagedSseEnabled',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'Tags',
  'RedrivePolicy',
  'RedriveAllowPolicy',
]);

/** `arn` of the deployment's account in fauxqs's. */
function fauxqsArnOf(arn: string): string {
  const parts = arn.split(':');
  parts[4] = FAUXQS_ACCOUNT;
  return parts.join(':');
}

/** The CreateQueue attributes of queue `logicalId`, redrive targets in fauxqs's ARN form. */
function attributesOf(stack: DeployedStack, logicalId: string): Record<string, string> {
  const props = stack.properties(logicalId);
  const unknown = Object.keys(props).filter((key) => !ATTRIBUTES.includes(key) && !IGNORED.has(key));
  if (unknown.length > 0)
    throw new Error(`the harness does not deploy ${unknown.join(', ')} of the queue ${logicalId}`);
  const attributes: Record<string, string> = {};
  for (const key of ATTRIBUTES) if (props[key] !== undefined) attributes[key] = String(props[key]);
  const redrive = props.RedrivePolicy as { deadLetterTargetArn: string; maxReceiveCount: number } | undefined;
  if (redrive) {
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: fauxqsArnOf(redrive.deadLetterTargetArn),
      maxReceiveCount: Number(redrive.maxReceiveCount),
    });
  }
  if (props.RedriveAllowPolicy !== undefined) {
    const allow = props.RedriveAllowPolicy as { sourceQueueArns?: string[] };
    attributes.RedriveAllowPolicy = JSON.stringify({
      ...allow,
      sourceQueueArns: allow.sourceQueueArns?.map(fauxqsArnOf),
    });
  }
  return attributes;
}

/** The logical id of the queue a queue's RedrivePolicy sends to, if any. */
function deadLetterQueueOf(stack: DeployedStack, logicalId: string): string | undefined {
  const redrive = stack.properties<{ RedrivePolicy?: { deadLetterTargetArn: string } }>(
    logicalId,
  ).RedrivePolicy;
  return redrive ? stack.logicalIdOf(redrive.deadLetterTargetArn) : undefined;
}

/**
 * Creates every queue of `stack` in the fauxqs at `fauxqsEndpoint` (in the stack's region) and
 * answers their names, URLs and ARNs, in creation order.
 */
export async function deployQueues(stack: DeployedStack, fauxqsEndpoint: string): Promise<DeployedQueue[]> {
  const sqs = new SQSClient({
    endpoint: fauxqsEndpoint,
    region: stack.region,
    credentials: { accessKeyId: 'fauxqs', secretAccessKey: 'fauxqs' },
  });
  const pending = stack.resourcesOfType('AWS::SQS::Queue').map(([logicalId]) => logicalId);
  const deployed: DeployedQueue[] = [];
  try {
    while (pending.length > 0) {
      const ready = pending.findIndex((logicalId) => {
        const dlq = deadLetterQueueOf(stack, logicalId);
        return dlq === undefined || deployed.some((queue) => queue.logicalId === dlq);
      });
      if (ready < 0)
        throw new Error(`the redrive policies of ${pending.join(', ')} name no deployable queue`);
      const [logicalId = ''] = pending.splice(ready, 1);
      const name = stack.attribute(logicalId, 'QueueName');
      const created = await sqs.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributesOf(stack, logicalId) }),
      );
      const arn = stack.attribute(logicalId, 'Arn');
      deployed.push({
        logicalId,
        name,
        url: stack.ref(logicalId),
        arn,
        fauxqsUrl: created.QueueUrl ?? '',
        fauxqsArn: fauxqsArnOf(arn),
      });
    }
  } finally {
    sqs.destroy();
  }
  return deployed;
}
