/**
 * The local EventBridge over the resources `cdk synth` makes for infra/constructs/trigger-bus.ts
 * (fixtures/trigger-bus.template.json, copied from the synthesized template), delivering to real
 * fauxqs queues, with an `Authorize` that allows exactly what the template's queue policy, Lambda
 * permission and rule roles allow.
 */
import { readFileSync } from 'node:fs';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localSqsClient } from '../../lib/queue/local-sqs-client.ts';
import type { AuthorizationRequest, Authorize } from '../support/aws/authorization.ts';
import { type CfnTemplate, DeployedStack } from '../support/aws/deployed-stack.ts';
import { LocalEventBridge, PutEventsValidationError } from '../support/aws/event-bridge.ts';
import { EventBridgeSetupError } from '../support/aws/event-bridge-rules.ts';
import { synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/trigger-bus.template.json', import.meta.url), 'utf8'),
) as CfnTemplate;
const account = '000000000000';

type Server = Awaited<ReturnType<typeof startFauxqs>>;

interface World {
  server: Server;
  sqs: SQSClient;
  stack: DeployedStack;
  asked: AuthorizationRequest[];
  invoked: Array<{ functionArn: string; event: unknown }>;
  /** Allowed beyond the template's grants, and denied whatever they say. */
  allow: (request: AuthorizationRequest) => boolean;
  deny: (request: AuthorizationRequest) => boolean;
  sendFailures: number;
}

/** What the template grants: the queue policy, the Lambda permission and the rule roles' policies. */
function templateGrants(stack: DeployedStack): (request: AuthorizationRequest) => boolean {
  const arn = (id: string) => stack.attribute(id, 'Arn');
  const sourceArn = (r: AuthorizationRequest) => r.context?.['aws:SourceArn'];
  const fromEvents = (r: AuthorizationRequest) =>
    r.principal.type === 'service' && r.principal.service === 'events.amazonaws.com';
  const forwarders = ['TriggersRelaySchedule', 'TriggersResyncSchedule', 'TriggersEc2StateChange'].map(
    (rule) =>
      arn(
        stack.resourcesOfType('AWS::IAM::Role').find(([id]) => id.startsWith(`${rule}EventsRole`))?.[0] ?? '',
      ),
  );
  return (r) =>
    (fromEvents(r) &&
      r.action === 'sqs:SendMessage' &&
      r.resource === arn('QueuesIngress7FE65ED1') &&
      [arn('TriggersToIngressAFAC12C4'), arn('TriggersResyncToIngress1BF68E8B')].includes(
        String(sourceArn(r)),
      )) ||
    (fromEvents(r) &&
      r.action === 'lambda:InvokeFunction' &&
      r.resource === arn('FunctionsRelay6CA15863') &&
      sourceArn(r) === arn('TriggersToRelayCF7ABC4E')) ||
    (r.principal.type === 'role' &&
      forwarders.includes(r.principal.roleArn) &&
      r.action === 'events:PutEvents' &&
      r.resource === arn('TriggersBus6827132D'));
}

function bridgeOf(world: World, stack = world.stack): LocalEventBridge {
  const grants = templateGrants(stack);
  const authorize: Authorize = async (request) => {
    world.asked.push(request);
    const allowed = (grants(request) || world.allow(request)) && !world.deny(request);
    return { allowed, message: allowed ? '' : `not authorized to perform: ${request.action}` };
  };
  return new LocalEventBridge({
    stack,
    authorize,
    sendToQueue: async (queueArn, body, messageGroupId, deduplicationId) => {
      if (world.sendFailures > 0) {
        world.sendFailures--;
        throw new Error('connection reset');
      }
      const queueUrl = stack.ref(stack.logicalIdOf(queueArn) ?? '');
      await world.sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageGroupId: messageGroupId,
          MessageDeduplicationId: deduplicationId,
        }),
      );
    },
    invokeAsync: async (functionArn, event) => {
      world.invoked.push({ functionArn, event });
    },
    log: () => undefined,
    retryDelayMs: 10,
  });
}

async function receiveAll(world: World, logicalId: string): Promise<Array<Record<string, unknown>>> {
  const answer = await world.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: world.stack.ref(logicalId),
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return (answer.Messages ?? []).map((m) => ({
    ...JSON.parse(m.Body ?? ''),
    '@group': m.Attributes?.MessageGroupId,
  }));
}

/** Creates the template's queues on fauxqs, whose queue URLs are then the stack's. */
async function createQueues(world: World, stack: DeployedStack): Promise<void> {
  for (const [logicalId, resource] of stack.resourcesOfType('AWS::SQS::Queue')) {
    const fifo = resource.Properties?.FifoQueue === true;
    const created = await world.sqs.send(
      new CreateQueueCommand({
        QueueName: stack.attribute(logicalId, 'QueueName'),
        Attributes: fifo ? { FifoQueue: 'true' } : {},
      }),
    );
    expect(created.QueueUrl).toBe(stack.ref(logicalId));
  }
}

/** The template deployed on fauxqs, whose queue URLs are `http://sqs.<region>.<host>:<port>/<account>/<name>`. */
function deployedOn(server: Server, template: CfnTemplate): DeployedStack {
  const { hostname, port } = new URL(server.address);
  const endpoint = `http://sqs.us-east-1.${hostname}:${port}`;
  return new DeployedStack(template, { account, region: 'us-east-1', stackName: 'Everynode', endpoint });
}

describe('the local EventBridge of the trigger bus', () => {
  let world: World;
  beforeEach(async () => {
    const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    const stack = deployedOn(server, fixture);
    world = {
      server,
      sqs: localSqsClient(server.address),
      stack,
      asked: [],
      invoked: [],
      allow: () => false,
      deny: () => false,
      sendFailures: 0,
    };
    await createQueues(world, stack);
  });
  afterEach(async () => {
    world.sqs.destroy();
    await world.server.stop();
  });

  it('routes a relay PutEvents entry on the everynode bus to the ingress queue as the EventBridge event', async () => {
    const bridge = bridgeOf(world);
    const relayRole = world.stack.attribute('FunctionsRelayRole017FC478', 'Arn');
    const answer = bridge.putEvents(
      [
        {
          EventBusName: 'everynode',
          Source: 'everynode.relay',
          DetailType: 'Kubernetes Watch Event',
          Detail: JSON.stringify({ kind: 'Node', name: 'n1' }),
          Time: new Date('2024-05-01T10:20:30.456Z'),
        },
      ],
      `arn:aws:sts::${account}:assumed-role/${relayRole.split('/').pop()}/relay`,
    );
    expect(answer.FailedEntryCount).toBe(0);
    await bridge.settled();
    const [body, ...more] = await receiveAll(world, 'QueuesIngress7FE65ED1');
    expect(more).toEqual([]);
    expect(body).toEqual({
      version: '0',
      id: answer.Entries[0]?.EventId,
      'detail-type': 'Kubernetes Watch Event',
      source: 'everynode.relay',
      account,
      time: '2024-05-01T10:20:30Z',
      region: 'us-east-1',
      resources: [],
      detail: { kind: 'Node', name: 'n1' },
      '@group': undefined,
    });
    expect(world.asked).toEqual([
      {
        principal: { type: 'service', service: 'events.amazonaws.com' },
        action: 'sqs:SendMessage',
        resource: `arn:aws:sqs:us-east-1:${account}:Everynode-QueuesIngress7FE65ED1`,
        context: {
          'aws:SourceArn': `arn:aws:events:us-east-1:${account}:rule/everynode/Everynode-TriggersToIngressAFAC12C4`,
          'aws:SourceAccount': account,
          'aws:SecureTransport': 'true',
        },
      },
    ]);
    expect(bridge.deliveries.map((d) => d.ruleArn.split('/').pop())).toEqual([
      'Everynode-TriggersToIngressAFAC12C4',
    ]);
  });

  it('fires the relay schedule: forwarded to the everynode bus by the rule role, then invokes the relay', async () => {
    const bridge = bridgeOf(world);
    const event = bridge.fireSchedule('TriggersRelaySchedule7B94C55E');
    await bridge.settled();
    const relayScheduleArn = world.stack.attribute('TriggersRelaySchedule7B94C55E', 'Arn');
    expect(event).toMatchObject({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} });
    expect(event.resources).toEqual([relayScheduleArn]);
    expect(world.invoked).toEqual([
      { functionArn: world.stack.attribute('FunctionsRelay6CA15863', 'Arn'), event },
    ]);
    const roleQuestion = world.asked.find((r) => r.action === 'events:PutEvents');
    expect(roleQuestion?.principal).toMatchObject({
      type: 'role',
      roleArn: world.stack.attribute('TriggersRelayScheduleEventsRole2C425A79', 'Arn'),
    });
    expect(roleQuestion?.resource).toBe(world.stack.attribute('TriggersBus6827132D', 'Arn'));
    expect(await receiveAll(world, 'QueuesIngress7FE65ED1')).toEqual([]);
    expect(bridge.unmatched).toBe(0);
  });

  it('delivers the resync schedule and EC2 state changes from the default bus to the ingress queue', async () => {
    const bridge = bridgeOf(world);
    const resync = bridge.fireSchedule('TriggersResyncScheduleB905C262');
    const ec2 = bridge.emitServiceEvent({
      source: 'aws.ec2',
      'detail-type': 'EC2 Instance State-change Notification',
      resources: [`arn:aws:ec2:us-east-1:${account}:instance/i-0abc`],
      detail: { 'instance-id': 'i-0abc', state: 'running' },
    });
    await bridge.settled();
    const bodies = await receiveAll(world, 'QueuesIngress7FE65ED1');
    const byId = new Map(bodies.map((b) => [b.id, b]));
    expect(byId.get(resync.id)).toMatchObject({ source: 'aws.events', resources: resync.resources });
    expect(byId.get(ec2.id)).toMatchObject({
      source: 'aws.ec2',
      'detail-type': 'EC2 Instance State-change Notification',
      resources: [`arn:aws:ec2:us-east-1:${account}:instance/i-0abc`],
      detail: { 'instance-id': 'i-0abc', state: 'running' },
    });
    expect(bodies).toHaveLength(2);
    expect(world.invoked).toEqual([]);
  });

  it('records and does not retry a denied delivery, and counts events no rule matches', async () => {
    world.deny = (r) => r.action === 'sqs:SendMessage';
    const bridge = bridgeOf(world);
    const entry = { EventBusName: 'everynode', DetailType: 'x', Detail: '{}' };
    bridge.putEvents([{ ...entry, Source: 'everynode.relay' }], 'arn:aws:iam::000000000000:user/op');
    bridge.putEvents([{ ...entry, Source: 'someone.else' }], 'arn:aws:iam::000000000000:user/op');
    await bridge.settled();
    expect(bridge.deliveryFailures).toMatchObject([
      { targetArn: world.stack.attribute('QueuesIngress7FE65ED1', 'Arn'), attempts: 1 },
    ]);
    expect(bridge.deliveryFailures[0]?.reason).toContain('not authorized to perform: sqs:SendMessage');
    expect(bridge.deliveries).toEqual([]);
    expect(bridge.unmatched).toBe(1);
    expect(await receiveAll(world, 'QueuesIngress7FE65ED1')).toEqual([]);
  });

  it('retries a failed transport per the target RetryPolicy', async () => {
    const bridge = bridgeOf(world);
    world.sendFailures = 2;
    bridge.putEvents(
      [{ EventBusName: 'everynode', Source: 'everynode.relay', DetailType: 'x', Detail: '{}' }],
      '',
    );
    await bridge.settled();
    expect(bridge.deliveryFailures).toEqual([]);
    expect(await receiveAll(world, 'QueuesIngress7FE65ED1')).toHaveLength(1);
    world.sendFailures = 3;
    bridge.putEvents(
      [{ EventBusName: 'everynode', Source: 'everynode.relay', DetailType: 'x', Detail: '{}' }],
      '',
    );
    await bridge.settled();
    expect(bridge.deliveryFailures).toMatchObject([{ attempts: 3, reason: 'Error: connection reset' }]);
  });

  it('answers PutEvents per entry as the API does', async () => {
    const bridge = bridgeOf(world);
    const busArn = world.stack.attribute('TriggersBus6827132D', 'Arn');
    const answer = bridge.putEvents(
      [
        { Source: 'everynode.relay', DetailType: 'x', Detail: '{"a":1}', EventBusName: busArn },
        { Source: 'everynode.relay', DetailType: 'x', Detail: '{not json' },
        { Source: 'everynode.relay', DetailType: 'x' },
        { Source: 'aws.ec2', DetailType: 'x', Detail: '{}' },
        { Source: 'everynode.relay', DetailType: 'x', Detail: '{}', EventBusName: 'nope' },
        { Source: 'everynode.relay', DetailType: 'x', Detail: '[1]' },
      ],
      '',
    );
    expect(answer.FailedEntryCount).toBe(5);
    expect(answer.Entries.map((e) => e.ErrorCode ?? 'ok')).toEqual([
      'ok',
      'MalformedDetail',
      'InvalidArgument',
      'NotAuthorizedForSourceException',
      'ResourceNotFoundException',
      'MalformedDetail',
    ]);
    expect(answer.Entries[0]?.EventId).toMatch(/^[0-9a-f-]{36}$/);
    const eleven = Array.from({ length: 11 }, () => ({ Source: 's', DetailType: 'x', Detail: '{}' }));
    expect(() => bridge.putEvents(eleven, '')).toThrow(PutEventsValidationError);
    await bridge.settled();
    expect(bridge.deliveries).toHaveLength(1);
  });

  it('transforms target input, sets the FIFO message group and skips disabled rules', async () => {
    const onBus = (pattern: object, target: object, state = 'ENABLED') => ({
      Type: 'AWS::Events::Rule',
      Properties: {
        EventBusName: { Ref: 'TriggersBus6827132D' },
        EventPattern: pattern,
        State: state,
        Targets: [target],
      },
    });
    const fifoArn = { 'Fn::GetAtt': ['OrderedB0A1', 'Arn'] };
    const template: CfnTemplate = {
      Resources: {
        ...fixture.Resources,
        OrderedB0A1: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
        Constant: onBus(
          { source: ['t.input'] },
          { Id: 'a', Arn: fifoArn, Input: '{"fixed":true}', SqsParameters: { MessageGroupId: 'g1' } },
        ),
        Path: onBus(
          { source: ['t.path'] },
          { Id: 'a', Arn: fifoArn, InputPath: '$.detail.items[1]', SqsParameters: { MessageGroupId: 'g2' } },
        ),
        Transformed: onBus(
          { source: ['t.transform'] },
          {
            Id: 'a',
            Arn: fifoArn,
            SqsParameters: { MessageGroupId: 'g3' },
            InputTransformer: {
              InputPathsMap: { id: '$.detail.instance-id', n: '$.detail.n' },
              InputTemplate: '{"instance":<id>,"text":"<id> has <n> at <aws.events.rule-name>","n":<n>}',
            },
          },
        ),
        Disabled: onBus(
          { source: ['t.input'] },
          { Id: 'a', Arn: fifoArn, SqsParameters: { MessageGroupId: 'g4' } },
          'DISABLED',
        ),
      },
    };
    const stack = deployedOn(world.server, template);
    await createQueues(world, stack);
    world.stack = stack;
    world.allow = (r) =>
      r.action === 'sqs:SendMessage' && r.resource === stack.attribute('OrderedB0A1', 'Arn');
    const bridge = bridgeOf(world);
    const put = (Source: string, detail: object) =>
      bridge.putEvents(
        [{ EventBusName: 'everynode', Source, DetailType: 'x', Detail: JSON.stringify(detail) }],
        '',
      );
    put('t.input', {});
    put('t.path', { items: [{ a: 1 }, { b: 2 }] });
    put('t.transform', { 'instance-id': 'i-1', n: 3 });
    await bridge.settled();
    const bodies = await receiveAll(world, 'OrderedB0A1');
    expect(bodies.sort((a, b) => String(a['@group']).localeCompare(String(b['@group'])))).toEqual([
      { fixed: true, '@group': 'g1' },
      { b: 2, '@group': 'g2' },
      { instance: 'i-1', text: 'i-1 has 3 at Everynode-Transformed', n: 3, '@group': 'g3' },
    ]);
    expect(bridge.deliveryFailures).toEqual([]);
  });

  it('refuses, when built, a template it could not run as AWS does', () => {
    const withRule = (target: object, pattern: object = { source: ['x'] }): CfnTemplate => ({
      Resources: {
        ...fixture.Resources,
        Odd: { Type: 'AWS::Events::Rule', Properties: { EventPattern: pattern, Targets: [target] } },
      },
    });
    const queue = { 'Fn::GetAtt': ['QueuesIngress7FE65ED1', 'Arn'] };
    const build = (template: CfnTemplate) => () => bridgeOf(world, deployedOn(world.server, template));
    expect(build(withRule({ Id: 'a', Arn: queue, DeadLetterConfig: { Arn: 'x' } }))).toThrow(
      EventBridgeSetupError,
    );
    expect(build(withRule({ Id: 'a', Arn: 'arn:aws:sns:us-east-1:000000000000:topic' }))).toThrow(
      EventBridgeSetupError,
    );
    expect(build(withRule({ Id: 'a', Arn: queue }, { detail: { ip: [{ cidr: '10.0.0.0/8' }] } }))).toThrow(
      /cidr/,
    );
  });
});

describe('the trigger-bus fixture', () => {
  it('is what cdk synth makes today, resource for resource', async () => {
    const { template } = await synthesizeApp(TEST_APP_CONTEXT);
    // Types and properties; a function's code and environment are not the bus's business.
    const essence = (r: CfnTemplate['Resources'][string] | undefined) =>
      r?.Type === 'AWS::Lambda::Function' ? { Type: r.Type } : { Type: r?.Type, Properties: r?.Properties };
    for (const [id, resource] of Object.entries(fixture.Resources)) {
      expect(essence(template.Resources[id]), id).toEqual(essence(resource));
    }
  }, 300_000);
});
