/**
 * The local AWS endpoint through real SDK v3 clients, as the functions call it: each client signs
 * with the credentials of one of the template's roles and trusts the gateway's CA; SQS goes on to
 * fauxqs holding the template's queues, SSM to the parameters the template creates, EventBridge to
 * a bus the test records, EC2 to instances the test lists. Allowed calls work; denied ones raise the
 * error name AWS gives; a bad signature or an unknown key is refused.
 */
import { Agent } from 'node:https';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  GetParameterCommand,
  GetParametersCommand,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsPrincipal } from '../support/aws/authorization.ts';
import { type AwsGateway, type IssuedCredentials, startAwsGateway } from '../support/aws/aws-gateway.ts';
import { type DeployedQueue, deployQueues } from '../support/aws/deployed-queues.ts';
import { logicalIdOf, synthesizedTemplate, TEST_TARGET } from './deployment-fixtures.ts';

const { account: ACCOUNT, region: REGION } = TEST_TARGET;

interface ClientConfig {
  endpoint: string;
  region: string;
  credentials: IssuedCredentials;
  requestHandler: { httpsAgent: Agent };
  maxAttempts: number;
}

describe('the local AWS endpoint', () => {
  let fauxqs: FauxqsServer;
  let gateway: AwsGateway;
  let queues: DeployedQueue[];
  const received: Array<{ entries: readonly PutEventsRequestEntry[]; principal: AwsPrincipal }> = [];
  const agents: Agent[] = [];

  const roleArn = (path: string) =>
    gateway.stack.attribute(logicalIdOf(gateway.stack, path, 'AWS::IAM::Role'), 'Arn');
  const queueUrl = (path: string) => gateway.stack.ref(logicalIdOf(gateway.stack, path, 'AWS::SQS::Queue'));
  const config = (credentials: IssuedCredentials): ClientConfig => {
    const httpsAgent = new Agent({ ca: gateway.caPem, keepAlive: true });
    agents.push(httpsAgent);
    return {
      endpoint: gateway.url,
      region: REGION,
      credentials,
      requestHandler: { httpsAgent },
      maxAttempts: 1,
    };
  };
  const as = (path: string) => config(gateway.issueRoleCredentials(roleArn(path), path));
  const errorOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  beforeAll(async () => {
    const template = await synthesizedTemplate();
    fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    gateway = await startAwsGateway({
      template,
      target: TEST_TARGET,
      sqsEndpoint: fauxqs.address,
      putEvents: (entries, principal) => {
        received.push({ entries, principal });
        return {
          FailedEntryCount: 0,
          Entries: entries.map((_, i) => ({ EventId: `event-${received.length}-${i}` })),
        };
      },
      instances: () => [
        { instanceId: 'i-0123456789abcdef0', privateDnsName: 'ip-10-0-1-23.ec2.internal', state: 'running' },
        { instanceId: 'i-0fedcba9876543210', privateDnsName: 'ip-10-0-2-34.ec2.internal', state: 'stopped' },
      ],
    });
    queues = await deployQueues(gateway.stack, fauxqs.address);
  }, 240_000);

  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    await gateway?.stop();
    await fauxqs?.stop();
  });

  it('carries the router’s SendMessage, ReceiveMessage and DeleteMessage through to fauxqs', async () => {
    const sqs = new SQSClient(as('FunctionsRouterRole'));
    const ingress = queueUrl('QueuesIngress');
    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: ingress, MessageBody: '{"kind":"node"}' }),
    );
    const ingressName = queues.find((queue) => queue.url === ingress)?.name ?? '';
    expect(fauxqs.inspectQueue(ingressName)?.messages.ready.map((m) => m.messageId)).toEqual([
      sent.MessageId,
    ]);
    const answer = await sqs.send(new ReceiveMessageCommand({ QueueUrl: ingress, MaxNumberOfMessages: 10 }));
    expect(answer.Messages?.map((m) => m.Body)).toEqual(['{"kind":"node"}']);
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: ingress, ReceiptHandle: answer.Messages?.[0]?.ReceiptHandle }),
    );
    expect(fauxqs.inspectQueue(ingressName)?.messages.inflight).toEqual([]);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl('QueuesWork'),
        MessageBody: 'work',
        MessageGroupId: 'ds',
        MessageDeduplicationId: 'one',
      }),
    );
    const routerSession = `arn:aws:sts::${ACCOUNT}:assumed-role/${gateway.stack.ref(logicalIdOf(gateway.stack, 'FunctionsRouterRole', 'AWS::IAM::Role'))}/FunctionsRouterRole`;
    expect(
      gateway.calls.filter((c) => c.principalArn === routerSession).map((c) => [c.action, c.allowed]),
    ).toEqual([
      ['sqs:SendMessage', true],
      ['sqs:ReceiveMessage', true],
      ['sqs:DeleteMessage', true],
      ['sqs:SendMessage', true],
    ]);
    sqs.destroy();
  });

  it('answers queue URLs and ARNs in the deployment’s form, not fauxqs’s', async () => {
    const inspector = gateway.registerUser(`arn:aws:iam::${ACCOUNT}:user/inspector`, {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'], Resource: '*' }],
    });
    const sqs = new SQSClient(config(inspector));
    const work = queues.find((queue) => queue.url === queueUrl('QueuesWork'));
    const dlq = queues.find((queue) => queue.url === queueUrl('QueuesWorkDlq'));
    const url = await sqs.send(new GetQueueUrlCommand({ QueueName: work?.name }));
    expect(url.QueueUrl).toBe(`${gateway.url}/${ACCOUNT}/${work?.name}`);
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: work?.url, AttributeNames: ['All'] }),
    );
    expect(attributes.Attributes?.QueueArn).toBe(work?.arn);
    expect(JSON.parse(attributes.Attributes?.RedrivePolicy ?? '{}').deadLetterTargetArn).toBe(dlq?.arn);
    sqs.destroy();
  });

  it('denies the router’s SendMessage to the work DLQ with SQS’s AccessDenied', async () => {
    const sqs = new SQSClient(as('FunctionsRouterRole'));
    const error = await errorOf(
      sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl('QueuesWorkDlq'),
          MessageBody: 'x',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd',
        }),
      ),
    );
    expect(error?.name).toBe('AccessDenied');
    expect(error?.message).toMatch(
      /^User: arn:aws:sts::\d{12}:assumed-role\/[^/]+\/FunctionsRouterRole is not authorized to perform: sqs:SendMessage on resource: arn:aws:sqs:us-east-1:\d{12}:\S+ because no identity-based policy allows the sqs:SendMessage action$/,
    );
    expect(gateway.calls.at(-1)).toMatchObject({ action: 'sqs:SendMessage', allowed: false });
    sqs.destroy();
  });

  it('lets the relay read and overwrite its checkpoint parameter, versions counting, and denies the router', async () => {
    const name = gateway.stack.ref(logicalIdOf(gateway.stack, 'RelayCheckpoint', 'AWS::SSM::Parameter'));
    const relay = new SSMClient(as('FunctionsRelayRole'));
    const seeded = await relay.send(new GetParameterCommand({ Name: name }));
    expect(seeded.Parameter).toMatchObject({ Name: name, Value: '{}', Version: 1, Type: 'String' });
    expect(seeded.Parameter?.LastModifiedDate).toBeInstanceOf(Date);
    const put = await relay.send(
      new PutParameterCommand({ Name: name, Value: '{"rv":"7"}', Type: 'String', Overwrite: true }),
    );
    expect(put.Version).toBe(2);
    expect((await relay.send(new GetParameterCommand({ Name: name }))).Parameter).toMatchObject({
      Value: '{"rv":"7"}',
      Version: 2,
    });
    const again = await errorOf(
      relay.send(new PutParameterCommand({ Name: name, Value: '{}', Type: 'String' })),
    );
    expect(again?.name).toBe('ParameterAlreadyExists');
    const unsupported = await errorOf(relay.send(new GetParametersCommand({ Names: [name] })));
    expect(unsupported?.name).toBe('UnsupportedOperation');
    expect(unsupported?.message).toMatch(/ssm:GetParameters/);

    const router = new SSMClient(as('FunctionsRouterRole'));
    const denied = await errorOf(router.send(new GetParameterCommand({ Name: name })));
    expect(denied?.name).toBe('AccessDeniedException');
    expect(denied?.message).toMatch(
      /is not authorized to perform: ssm:GetParameter on resource: arn:aws:ssm:us-east-1:\d{12}:parameter\//,
    );
    relay.destroy();
    router.destroy();
  });

  it('answers ParameterNotFound to a user allowed to read any parameter', async () => {
    const operator = gateway.registerUser(`arn:aws:iam::${ACCOUNT}:user/operator`, {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ssm:GetParameter', Resource: '*' }],
    });
    const ssm = new SSMClient(config(operator));
    expect((await errorOf(ssm.send(new GetParameterCommand({ Name: '/no/such' }))))?.name).toBe(
      'ParameterNotFound',
    );
    expect(gateway.calls.at(-1)).toMatchObject({
      principalArn: `arn:aws:iam::${ACCOUNT}:user/operator`,
      resource: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/no/such`,
      allowed: true,
    });
    ssm.destroy();
  });

  it('answers the router’s DescribeInstances from the listed instances, and UnauthorizedOperation to reconcile', async () => {
    const router = new EC2Client(as('FunctionsRouterRole'));
    const byId = await router.send(new DescribeInstancesCommand({ InstanceIds: ['i-0123456789abcdef0'] }));
    expect(
      byId.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => [
        i.InstanceId,
        i.PrivateDnsName,
        i.State?.Name,
      ]),
    ).toEqual([['i-0123456789abcdef0', 'ip-10-0-1-23.ec2.internal', 'running']]);
    const byName = await router.send(
      new DescribeInstancesCommand({
        Filters: [{ Name: 'private-dns-name', Values: ['ip-10-0-2-34.ec2.internal'] }],
      }),
    );
    expect(byName.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId)).toEqual([
      'i-0fedcba9876543210',
    ]);
    const unknown = await errorOf(
      router.send(new DescribeInstancesCommand({ InstanceIds: ['i-00000000000000000'] })),
    );
    expect(unknown?.name).toBe('InvalidInstanceID.NotFound');

    const reconcile = new EC2Client(as('FunctionsReconcileRole'));
    const denied = await errorOf(
      reconcile.send(new DescribeInstancesCommand({ InstanceIds: ['i-0123456789abcdef0'] })),
    );
    expect(denied?.name).toBe('UnauthorizedOperation');
    expect(denied?.message).toMatch(
      /is not authorized to perform: ec2:DescribeInstances because no identity-based policy allows/,
    );
    router.destroy();
    reconcile.destroy();
  });

  it('hands the relay’s PutEvents to the bus, refusing aws.* sources, and denies reconcile', async () => {
    const relay = new EventBridgeClient(as('FunctionsRelayRole'));
    const bus = gateway.stack.ref(logicalIdOf(gateway.stack, 'TriggersBus', 'AWS::Events::EventBus'));
    const answer = await relay.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: bus, Source: 'everynode.relay', DetailType: 'node', Detail: '{"name":"n1"}' },
          {
            EventBusName: bus,
            Source: 'aws.ec2',
            DetailType: 'EC2 Instance State-change Notification',
            Detail: '{}',
          },
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries?.map((e) => e.ErrorCode ?? e.EventId)).toEqual([
      'event-1-0',
      'NotAuthorizedForSourceException',
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]?.entries.map((e) => [e.EventBusName, e.Source, e.Detail])).toEqual([
      [bus, 'everynode.relay', '{"name":"n1"}'],
    ]);
    expect(gateway.calls.at(-1)).toMatchObject({
      action: 'events:PutEvents',
      resource: `arn:aws:events:us-east-1:${ACCOUNT}:event-bus/${bus}`,
      allowed: true,
    });
    expect(received[0]?.principal).toMatchObject({ type: 'role', roleArn: roleArn('FunctionsRelayRole') });

    const reconcile = new EventBridgeClient(as('FunctionsReconcileRole'));
    const denied = await errorOf(
      reconcile.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: bus, Source: 'everynode.relay', DetailType: 'x', Detail: '{}' }],
        }),
      ),
    );
    expect(denied?.name).toBe('AccessDeniedException');
    expect(received).toHaveLength(1);
    relay.destroy();
    reconcile.destroy();
  });

  it('refuses a wrong secret, an unknown key and a missing session token', async () => {
    const issued = gateway.issueRoleCredentials(roleArn('FunctionsRouterRole'), 'forger');
    const ingress = queueUrl('QueuesIngress');
    const attempt = async (credentials: IssuedCredentials) => {
      const sqs = new SQSClient(config(credentials));
      const error = await errorOf(sqs.send(new SendMessageCommand({ QueueUrl: ingress, MessageBody: 'x' })));
      sqs.destroy();
      return error?.name;
    };
    expect(await attempt({ ...issued, secretAccessKey: `${issued.secretAccessKey}x` })).toBe(
      'SignatureDoesNotMatch',
    );
    expect(await attempt({ ...issued, accessKeyId: 'ASIAUNKNOWNUNKNOWN00' })).toBe('InvalidClientTokenId');
    expect(await attempt({ accessKeyId: issued.accessKeyId, secretAccessKey: issued.secretAccessKey })).toBe(
      'InvalidClientTokenId',
    );
    const ssm = new SSMClient(config({ ...issued, secretAccessKey: 'wrong' }));
    expect((await errorOf(ssm.send(new GetParameterCommand({ Name: 'x' }))))?.name).toBe(
      'InvalidSignatureException',
    );
    ssm.destroy();
  });

  it('met no failure of its own along the way', () => {
    expect(gateway.failures).toEqual([]);
  });
});
