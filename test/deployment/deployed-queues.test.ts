/**
 * The template's queues as deployQueues creates them in fauxqs: each under its physical name with
 * the attributes the template gives it, and the work queue's redrive policy really moving a message
 * to the work DLQ after maxReceiveCount receives — received through the gateway by the reconcile
 * role, as the event source mapping would.
 */
import { Agent } from 'node:https';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redrive } from '../../lib/queue/redrive.ts';
import { type AwsGateway, startAwsGateway } from '../support/aws/aws-gateway.ts';
import { type DeployedQueue, deployQueues, FAUXQS_ACCOUNT } from '../support/aws/deployed-queues.ts';
import { logicalIdOf, synthesizedTemplate, TEST_TARGET } from './deployment-fixtures.ts';

describe('the template’s queues in fauxqs', () => {
  let fauxqs: FauxqsServer;
  let gateway: AwsGateway;
  let queues: DeployedQueue[];
  const queue = (path: string) => {
    const found = queues.find((q) => q.logicalId === logicalIdOf(gateway.stack, path, 'AWS::SQS::Queue'));
    if (!found) throw new Error(`no queue ${path}`);
    return found;
  };

  beforeAll(async () => {
    const template = await synthesizedTemplate();
    fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    gateway = await startAwsGateway({ template, target: TEST_TARGET, sqsEndpoint: fauxqs.address });
    queues = await deployQueues(gateway.stack, fauxqs.address);
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await fauxqs?.stop();
  });

  it('creates every queue under its physical name with the template’s attributes, DLQs first', () => {
    expect(queues.map((q) => q.logicalId).sort()).toEqual(
      gateway.stack
        .resourcesOfType('AWS::SQS::Queue')
        .map(([id]) => id)
        .sort(),
    );
    const work = queue('QueuesWork');
    const workDlq = queue('QueuesWorkDlq');
    expect(queues.indexOf(workDlq)).toBeLessThan(queues.indexOf(work));
    expect(work.name).toBe(`${TEST_TARGET.stackName}-${work.logicalId}.fifo`);
    expect(work.url).toBe(`${gateway.url}/${TEST_TARGET.account}/${work.name}`);
    expect(fauxqs.inspectQueue(work.name)?.attributes).toMatchObject({
      FifoQueue: 'true',
      VisibilityTimeout: '360',
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      QueueArn: `arn:aws:sqs:${TEST_TARGET.region}:${FAUXQS_ACCOUNT}:${work.name}`,
    });
    expect(JSON.parse(fauxqs.inspectQueue(work.name)?.attributes.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: workDlq.fauxqsArn,
      maxReceiveCount: 5,
    });
    expect(fauxqs.inspectQueue(queue('QueuesIngressDlq').name)?.attributes).toMatchObject({
      MessageRetentionPeriod: '1209600',
    });
    expect(fauxqs.inspectQueue(queue('QueuesIngress').name)?.attributes.VisibilityTimeout).toBe('180');
  });

  it('moves a work message to the work DLQ after five receives by reconcile', async () => {
    const role = gateway.stack.attribute(
      logicalIdOf(gateway.stack, 'FunctionsReconcileRole', 'AWS::IAM::Role'),
      'Arn',
    );
    const httpsAgent = new Agent({ ca: gateway.caPem });
    const sqs = new SQSClient({
      endpoint: gateway.url,
      region: TEST_TARGET.region,
      credentials: gateway.issueRoleCredentials(role, 'reconcile'),
      requestHandler: { httpsAgent },
    });
    const work = queue('QueuesWork');
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: work.url,
        MessageBody: 'poison',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'p',
      }),
    );
    const receive = () =>
      sqs.send(
        new ReceiveMessageCommand({ QueueUrl: work.url, VisibilityTimeout: 0, MaxNumberOfMessages: 1 }),
      );
    for (let i = 0; i < 5; i++) expect((await receive()).Messages?.map((m) => m.Body)).toEqual(['poison']);
    expect((await receive()).Messages ?? []).toEqual([]);
    expect(fauxqs.inspectQueue(queue('QueuesWorkDlq').name)?.messages.ready.map((m) => m.body)).toEqual([
      'poison',
    ]);
    sqs.destroy();
    httpsAgent.destroy();
  });

  it('lets an operator redrive the work DLQ: StartMessageMoveTask is unsupported, so the messages are copied back', async () => {
    const work = queue('QueuesWork');
    const dlq = queue('QueuesWorkDlq');
    const operator = gateway.registerUser(`arn:aws:iam::${TEST_TARGET.account}:user/operator`, {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['sqs:StartMessageMoveTask', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
          Resource: dlq.arn,
        },
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: work.arn },
      ],
    });
    const httpsAgent = new Agent({ ca: gateway.caPem });
    const sqs = new SQSClient({
      endpoint: gateway.url,
      region: TEST_TARGET.region,
      credentials: operator,
      requestHandler: { httpsAgent },
      maxAttempts: 1,
    });
    const result = await redrive(sqs, {
      dlqUrl: dlq.url,
      dlqArn: dlq.arn,
      targetUrl: work.url,
      targetArn: work.arn,
    });
    expect(result).toEqual({ mode: 'copied', moved: 1 });
    expect(fauxqs.inspectQueue(work.name)?.messages.ready.map((m) => m.body)).toEqual(['poison']);
    expect(fauxqs.inspectQueue(dlq.name)?.messages.ready).toEqual([]);
    expect(gateway.failures).toEqual([]);
    sqs.destroy();
    httpsAgent.destroy();
  });
});
