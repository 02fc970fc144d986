import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { Everynode } from '../../infra/everynode.ts';
import { aTestStack, type TestStack } from '../support/test-stack.ts';

/** The test stack with cdk-nag's AwsSolutions checks on its app. */
function build(): TestStack {
  // Bundling is skipped here (the synth test bundles for real); the assertions are on the template.
  const built = aTestStack();
  Validations.of(built.app).addPlugins(new AwsSolutionsChecks(built.app));
  return built;
}

function logicalId(template: Template, type: string, props: Record<string, unknown>): string {
  const found = Object.keys(template.findResources(type, { Properties: props }));
  expect(found, `${type} ${JSON.stringify(props)}`).toHaveLength(1);
  return found[0] ?? '';
}

describe('the Everynode construct alone in a stack', () => {
  let template: Template;
  let everynode: Everynode;
  beforeAll(() => {
    const built = build();
    everynode = built.everynode;
    template = Template.fromStack(built.stack);
  });

  it('has a FIFO work queue in high-throughput mode with a FIFO DLQ after maxReceiveCount', () => {
    const workDlq = logicalId(template, 'AWS::SQS::Queue', {
      FifoQueue: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * 60,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [workDlq, 'Arn'] }, maxReceiveCount: 5 },
    });
  });

  it('has a standard ingress queue with its DLQ, SSE on every queue, visibility six times the consumer', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: Match.absent(),
      VisibilityTimeout: 6 * 30,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }),
    });
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(4);
    for (const q of queues) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const dlqs = queues.filter((q) => q.Properties.MessageRetentionPeriod === 14 * 24 * 3600);
    expect(dlqs).toHaveLength(2);
  });

  it('consumes both queues with ReportBatchItemFailures and caps concurrency', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(2);
    for (const m of mappings) {
      expect(m.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(m.Properties.ScalingConfig.MaximumConcurrency).toBeGreaterThanOrEqual(2);
    }
  });

  it('runs the functions on nodejs22.x arm64 and the relay two at a time (a run and its successor)', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] },
    });
    expect(Object.keys(functions)).toHaveLength(3);
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: 2,
      Environment: { Variables: Match.objectLike({ EVERYNODE_EVENT_BUS_NAME: Match.anyValue() }) },
    });
  });

  it('gives the relay the memory its cluster needs, the others 512 MB', () => {
    const sizes = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Runtime: 'nodejs22.x' },
      }),
    ).map((f) => [
      f.Properties.ReservedConcurrentExecutions === undefined ? 'other' : 'relay',
      f.Properties.MemorySize,
    ]);
    expect(sizes.sort()).toEqual([
      ['other', 512],
      ['other', 512],
      ['relay', 1216],
    ]);
  });

  it('has the everynode bus with an archive, schedules and the EC2 state-change rule', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'everynode' });
    template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 14 });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'] },
    });
  });

  it('scopes every queue and bus permission to our own resources', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>,
    );
    const scoped = statements.filter((s) => JSON.stringify(s.Action).match(/sqs:|events:PutEvents|ssm:/));
    expect(scoped.length).toBeGreaterThan(0);
    for (const s of scoped) expect(JSON.stringify(s.Resource), JSON.stringify(s)).not.toContain('"*"');
    const admin = statements.filter((s) => s.Action === '*' || JSON.stringify(s.Action).includes('"sqs:*"'));
    expect(admin).toEqual([]);
  });

  it('lets only the router describe EC2 instances (the private-DNS fallback), read-only', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const withDescribe = policies.filter(([, p]) =>
      JSON.stringify(p.Properties.PolicyDocument.Statement).includes('ec2:DescribeInstances'),
    );
    expect(withDescribe).toHaveLength(1);
    const [, policy] = withDescribe[0] ?? [
      '',
      { Properties: { Roles: [], PolicyDocument: { Statement: [] } } },
    ];
    expect(JSON.stringify(policy.Properties.Roles)).toContain('Router');
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>;
    const statement = statements.find((st) => st.Action === 'ec2:DescribeInstances');
    expect(statement).toMatchObject({ Effect: 'Allow', Resource: '*' });
  });

  it.each([
    { fn: 'Relay', group: 'everynode:relay' },
    { fn: 'Router', group: 'everynode:router' },
    { fn: 'Reconcile', group: 'everynode:reconcile' },
  ])('maps the $fn role to $group alone, with no access policy', ({ fn, group }) => {
    const entries = Object.values(template.findResources('AWS::EKS::AccessEntry'));
    expect(entries).toHaveLength(3);
    const own = entries.filter((e) =>
      JSON.stringify(e.Properties.PrincipalArn).includes(`Functions${fn}Role`),
    );
    expect(own).toHaveLength(1);
    expect(own[0]?.Properties).toMatchObject({ ClusterName: 'prod-eks', KubernetesGroups: [group] });
    expect(own[0]?.Properties.AccessPolicies).toBeUndefined();
    expect(everynode.access.accessEntries).toHaveLength(3);
  });

  it('reads the cluster endpoint at deploy time, never at synth', () => {
    const describe = logicalId(template, 'Custom::AWS', {
      Create: Match.stringLikeRegexp('"describeCluster"'),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          EVERYNODE_CLUSTER_ENDPOINT: { 'Fn::GetAtt': [describe, 'cluster.endpoint'] },
          EVERYNODE_CLUSTER_CA: { 'Fn::GetAtt': [describe, 'cluster.certificateAuthority.data'] },
        }),
      },
    });
  });

  it('alarms on DLQs, work age, function errors and no relay watching', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const metrics = alarms.map((a) => a.Properties.MetricName);
    expect(metrics.filter((m) => m === 'ApproximateNumberOfMessagesVisible')).toHaveLength(2);
    expect(metrics).toContain('ApproximateAgeOfOldestMessage');
    expect(metrics.filter((m) => m === 'Errors')).toHaveLength(3);
    expect(metrics).toContain('RelayHeartbeats');
    expect(metrics).not.toContain('Invocations');
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('passes cdk-nag AwsSolutions with only justified acknowledgements', () => {
    const { app } = build();
    expect(() => app.synth()).not.toThrow();
  });

  it('passes cdk-nag in a VPC too (ENI rights and instance lookups on one role)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'EverynodeInVpc', { env: { account: '111122223333', region: 'eu-west-1' } });
    const vpc = Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-1',
      availabilityZones: ['zone-0'],
      privateSubnetIds: ['subnet-1'],
    });
    new Everynode(stack, 'Everynode', {
      clusterName: 'prod-eks',
      vpc,
      vpcSubnets: { subnets: [Subnet.fromSubnetId(stack, 'Subnet0', 'subnet-1')] },
      securityGroups: [SecurityGroup.fromSecurityGroupId(stack, 'Sg0', 'sg-1')],
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('would fail cdk-nag on an unjustified violation (the check is live)', () => {
    const { app, stack } = build();
    new Queue(stack, 'Unencrypted', { encryption: QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
  });

  it('matches the snapshot', () => {
    const json = template.toJSON() as { Resources: Record<string, { Properties?: { Code?: unknown } }> };
    for (const resource of Object.values(json.Resources)) {
      if (resource.Properties?.Code) resource.Properties.Code = '<bundled asset>';
    }
    expect(json).toMatchSnapshot();
  });
});
