/**
 * The IAM evaluator over the template `cdk synth` makes: what each function's role may do, what the
 * queue policies and the Lambda permission let EventBridge do, and AWS's wording of a denial. A
 * small hand-written template covers what the synthesized one does not use (inline and managed
 * policies, registered users, Lambda permission conditions on the source account).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AwsPrincipal } from '../support/aws/authorization.ts';
import { type CfnTemplate, DeployedStack } from '../support/aws/deployed-stack.ts';
import { createIamAuthorizer } from '../support/aws/iam-authorizer.ts';
import { StackPolicies } from '../support/aws/iam-policies.ts';
import { logicalIdOf, synthesizedTemplate, TEST_TARGET } from './deployment-fixtures.ts';

const ACCOUNT = TEST_TARGET.account;
const REGION = TEST_TARGET.region;
const target = { ...TEST_TARGET, endpoint: 'https://127.0.0.1:4566' };

describe('the IAM evaluator over the synthesized template', () => {
  let stack: DeployedStack;
  const role = (path: string): AwsPrincipal => ({
    type: 'role',
    roleArn: stack.attribute(logicalIdOf(stack, path, 'AWS::IAM::Role'), 'Arn'),
    sessionName: path,
  });
  const arnOf = (path: string, type: string) => stack.attribute(logicalIdOf(stack, path, type), 'Arn');
  const events: AwsPrincipal = { type: 'service', service: 'events.amazonaws.com' };

  beforeAll(async () => {
    stack = new DeployedStack(await synthesizedTemplate(), target);
  }, 240_000);

  it('lets the router send to the ingress and work queues but not to the work DLQ, saying why as AWS does', async () => {
    const authorize = createIamAuthorizer(stack);
    const router = role('FunctionsRouterRole');
    const send = (queue: string) =>
      authorize({ principal: router, action: 'sqs:SendMessage', resource: arnOf(queue, 'AWS::SQS::Queue') });
    expect((await send('QueuesIngress')).allowed).toBe(true);
    expect((await send('QueuesWork')).allowed).toBe(true);
    const dlq = await send('QueuesWorkDlq');
    expect(dlq.allowed).toBe(false);
    expect(dlq.message).toBe(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/${stack.ref(logicalIdOf(stack, 'FunctionsRouterRole', 'AWS::IAM::Role'))}/FunctionsRouterRole` +
        ` is not authorized to perform: sqs:SendMessage on resource: ${arnOf('QueuesWorkDlq', 'AWS::SQS::Queue')}` +
        ' because no identity-based policy allows the sqs:SendMessage action',
    );
  });

  it('denies reconcile ssm:PutParameter and lets the relay write its checkpoint', async () => {
    const authorize = createIamAuthorizer(stack);
    const checkpoint = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/${stack.ref(logicalIdOf(stack, 'RelayCheckpoint', 'AWS::SSM::Parameter'))}`;
    const put = (path: string) =>
      authorize({ principal: role(path), action: 'ssm:PutParameter', resource: checkpoint });
    expect((await put('FunctionsRelayRole')).allowed).toBe(true);
    const reconcile = await put('FunctionsReconcileRole');
    expect(reconcile.allowed).toBe(false);
    expect(reconcile.message).toMatch(/because no identity-based policy allows the ssm:PutParameter action$/);
  });

  it('denies a request without TLS by the queue policy even to a role its identity policy allows', async () => {
    const authorize = createIamAuthorizer(stack);
    const decision = await authorize({
      principal: role('FunctionsRouterRole'),
      action: 'sqs:SendMessage',
      resource: arnOf('QueuesIngress', 'AWS::SQS::Queue'),
      context: { 'aws:SecureTransport': 'false' },
    });
    expect(decision.allowed).toBe(false);
    expect(decision.message).toMatch(/ with an explicit deny in a resource-based policy$/);
  });

  it('lets events.amazonaws.com send to the ingress queue only for the ToIngress and ResyncToIngress rules', async () => {
    const authorize = createIamAuthorizer(stack);
    const ingress = arnOf('QueuesIngress', 'AWS::SQS::Queue');
    const deliver = (sourceArn: string | undefined, resource = ingress) =>
      authorize({
        principal: events,
        action: 'sqs:SendMessage',
        resource,
        ...(sourceArn ? { context: { 'aws:SourceArn': sourceArn } } : {}),
      });
    expect((await deliver(arnOf('TriggersToIngress', 'AWS::Events::Rule'))).allowed).toBe(true);
    expect((await deliver(arnOf('TriggersResyncToIngress', 'AWS::Events::Rule'))).allowed).toBe(true);
    const fromRelayRule = await deliver(arnOf('TriggersToRelay', 'AWS::Events::Rule'));
    expect(fromRelayRule.allowed).toBe(false);
    expect(fromRelayRule.message).toMatch(
      /because no resource-based policy allows the sqs:SendMessage action$/,
    );
    expect((await deliver(undefined)).allowed).toBe(false);
    expect(
      (await deliver(arnOf('TriggersToIngress', 'AWS::Events::Rule'), arnOf('QueuesWork', 'AWS::SQS::Queue')))
        .allowed,
    ).toBe(false);
  });

  it('lets events.amazonaws.com invoke the relay only from the ToRelay rule', async () => {
    const authorize = createIamAuthorizer(stack);
    const invoke = (rule: string, fn = 'FunctionsRelay') =>
      authorize({
        principal: events,
        action: 'lambda:InvokeFunction',
        resource: arnOf(fn, 'AWS::Lambda::Function'),
        context: { 'aws:SourceArn': arnOf(rule, 'AWS::Events::Rule') },
      });
    expect((await invoke('TriggersToRelay')).allowed).toBe(true);
    expect((await invoke('TriggersToIngress')).allowed).toBe(false);
    expect((await invoke('TriggersToRelay', 'FunctionsRouter')).allowed).toBe(false);
  });

  it('lets the schedule rules put events on the bus through their roles, and nothing else there', async () => {
    const authorize = createIamAuthorizer(stack);
    const bus = arnOf('TriggersBus', 'AWS::Events::EventBus');
    const put = (path: string) =>
      authorize({ principal: role(path), action: 'events:PutEvents', resource: bus });
    expect((await put('TriggersRelayScheduleEventsRole')).allowed).toBe(true);
    expect((await put('FunctionsRelayRole')).allowed).toBe(true);
    expect((await put('FunctionsReconcileRole')).allowed).toBe(false);
    expect((await put('FunctionsRouterRole')).allowed).toBe(false);
  });
});

describe('policies from a hand-written template', () => {
  const template: CfnTemplate = {
    Resources: {
      Queue: { Type: 'AWS::SQS::Queue' },
      Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
      Role: {
        Type: 'AWS::IAM::Role',
        Properties: {
          ManagedPolicyArns: [
            {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
                ],
              ],
            },
          ],
          Policies: [
            {
              PolicyName: 'inline',
              PolicyDocument: {
                Statement: [
                  { Effect: 'Allow', Action: 'sqs:*', Resource: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
                ],
              },
            },
          ],
        },
      },
      Deny: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          PolicyName: 'deny-purge',
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: { Statement: [{ Effect: 'Deny', Action: 'sqs:PurgeQueue', Resource: '*' }] },
        },
      },
      Invoke: {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { Ref: 'Fn' },
          Principal: 's3.amazonaws.com',
          SourceAccount: { Ref: 'AWS::AccountId' },
        },
      },
    },
  };
  const stack = new DeployedStack(template, target);
  const roleArn = stack.attribute('Role', 'Arn');
  const queueArn = stack.attribute('Queue', 'Arn');
  const principal: AwsPrincipal = { type: 'role', roleArn, sessionName: 's' };

  it('evaluates inline policies, AWS::IAM::Policy and known AWS managed policies, explicit denies first', async () => {
    const authorize = createIamAuthorizer(stack);
    expect((await authorize({ principal, action: 'sqs:ReceiveMessage', resource: queueArn })).allowed).toBe(
      true,
    );
    const logs = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/x:log-stream:y`;
    expect((await authorize({ principal, action: 'logs:PutLogEvents', resource: logs })).allowed).toBe(true);
    const purge = await authorize({ principal, action: 'sqs:PurgeQueue', resource: queueArn });
    expect(purge.allowed).toBe(false);
    expect(purge.message).toMatch(/ with an explicit deny in an identity-based policy$/);
  });

  it('throws for a managed policy whose document it does not have, and for an unknown principal', async () => {
    const unknownManaged = {
      Resources: {
        R: {
          Type: 'AWS::IAM::Role',
          Properties: { ManagedPolicyArns: ['arn:aws:iam::aws:policy/AdministratorAccess'] },
        },
      },
    };
    expect(() => new StackPolicies(new DeployedStack(unknownManaged, target))).toThrow(/AdministratorAccess/);
    const authorize = createIamAuthorizer(stack);
    const stranger: AwsPrincipal = {
      type: 'role',
      roleArn: `arn:aws:iam::${ACCOUNT}:role/Other`,
      sessionName: 's',
    };
    await expect(
      authorize({ principal: stranger, action: 'sqs:SendMessage', resource: queueArn }),
    ).rejects.toThrow(/no role or registered user/);
  });

  it('stores a Lambda permission with its source account condition', async () => {
    const policies = new StackPolicies(stack);
    const fnArn = stack.attribute('Fn', 'Arn');
    expect(policies.resourcePolicy(fnArn)).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'Invoke',
          Effect: 'Allow',
          Principal: { Service: 's3.amazonaws.com' },
          Action: 'lambda:InvokeFunction',
          Resource: fnArn,
          Condition: { StringEquals: { 'AWS:SourceAccount': ACCOUNT } },
        },
      ],
    });
    const authorize = createIamAuthorizer(stack, { policies });
    const s3: AwsPrincipal = { type: 'service', service: 's3.amazonaws.com' };
    const invoke = (account: string) =>
      authorize({
        principal: s3,
        action: 'lambda:InvokeFunction',
        resource: fnArn,
        context: { 'aws:SourceAccount': account },
      });
    expect((await invoke(ACCOUNT)).allowed).toBe(true);
    expect((await invoke('999999999999')).allowed).toBe(false);
  });

  it('evaluates a registered user with its own policy', async () => {
    const policies = new StackPolicies(stack);
    const userArn = `arn:aws:iam::${ACCOUNT}:user/operator`;
    policies.registerUser(userArn, {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'sqs:StartMessageMoveTask', Resource: queueArn }],
    });
    const authorize = createIamAuthorizer(stack, { policies });
    const user: AwsPrincipal = { type: 'user', userArn };
    expect(
      (await authorize({ principal: user, action: 'sqs:StartMessageMoveTask', resource: queueArn })).allowed,
    ).toBe(true);
    const send = await authorize({ principal: user, action: 'sqs:SendMessage', resource: queueArn });
    expect(send.message).toBe(
      `User: ${userArn} is not authorized to perform: sqs:SendMessage on resource: ${queueArn} because no identity-based policy allows the sqs:SendMessage action`,
    );
  });
});
