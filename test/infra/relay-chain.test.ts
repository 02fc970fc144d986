import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Everynode } from '../../infra/everynode.ts';
import { EnvironmentName } from '../../lib/config/environment-names.ts';
import { aTestStack, STACK_CONTEXTS } from '../support/test-stack.ts';

type Json = Record<string, unknown>;
interface CfnResource {
  readonly Type: string;
  readonly Properties?: Json;
  readonly DependsOn?: string | string[];
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Every identity policy of the template: attached policies and roles' inline ones, with their roles. */
function identityPolicies(resources: Readonly<Record<string, CfnResource>>) {
  return Object.entries(resources).flatMap(([id, r]) => {
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') {
      const document = r.Properties?.PolicyDocument as { Statement: Json[] };
      return [{ id, roles: r.Properties?.Roles ?? [], statements: document.Statement }];
    }
    if (r.Type !== 'AWS::IAM::Role') return [];
    const inline = (r.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Json[] } }[];
    return inline.map((p) => ({ id, roles: [{ Ref: id }], statements: p.PolicyDocument.Statement }));
  });
}

/** The properties of resource `id`, empty when the template has no such resource. */
const propertiesOf = (resources: Readonly<Record<string, CfnResource>>, id: string): Json =>
  resources[id]?.Properties ?? {};

/** The environment variables of function `id`. */
const variablesOf = (resources: Readonly<Record<string, CfnResource>>, id: string): Json =>
  (propertiesOf(resources, id).Environment as { Variables?: Json } | undefined)?.Variables ?? {};

const grantsLambda = (statement: Json): boolean =>
  asList(statement.Action).some((a) => /^(lambda:|\*$)/i.test(String(a)));

describe.each(STACK_CONTEXTS)('the relay chain in the stack $name', ({ context }) => {
  let stack: Stack;
  let everynode: Everynode;
  let resources: Record<string, CfnResource>;
  let relayId: string;
  let relayRoleId: string;
  beforeAll(() => {
    ({ stack, everynode } = aTestStack(context));
    // The cycle check is a test of its own below, so that a cycle does not hide the other findings.
    resources = Template.fromStack(stack, { skipCyclicalDependenciesCheck: true }).toJSON().Resources;
    relayId = stack.getLogicalId(everynode.pipelineFunctions.relay.node.defaultChild as CfnElement);
    const role = propertiesOf(resources, relayId).Role as { 'Fn::GetAtt': string[] } | undefined;
    relayRoleId = role?.['Fn::GetAtt'][0] ?? '';
  });

  it('reserves two concurrent executions for the relay (a run and its successor), none for the others', () => {
    expect(resources[relayId]?.Properties?.ReservedConcurrentExecutions).toBe(2);
    for (const fn of [everynode.pipelineFunctions.router, everynode.pipelineFunctions.reconcile]) {
      const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
      expect(resources[id]?.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('lets the relay invoke itself without end: recursive loop detection would cut the chain at 16', () => {
    expect(resources[relayId]?.Properties?.RecursiveLoop).toBe('Allow');
    for (const fn of [everynode.pipelineFunctions.router, everynode.pipelineFunctions.reconcile]) {
      const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
      expect(resources[id]?.Properties?.RecursiveLoop ?? 'Terminate').toBe('Terminate');
    }
  });

  it('fires the relay schedule every minute as a watchdog; the run period P and timeout stay', () => {
    const schedule = stack.getLogicalId(everynode.triggers.relaySchedule.node.defaultChild as CfnElement);
    expect(everynode.triggers.relaySchedule.node.path).toBe('Everynode/Default/Triggers/RelaySchedule');
    expect(resources[schedule]?.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      Description: expect.stringMatching(/watchdog, every 60 s/),
    });
    expect(variablesOf(resources, relayId)[EnvironmentName.relayRunSeconds]).toBe('300');
    expect(propertiesOf(resources, relayId).Timeout).toBe(360);
  });

  it('lets the relay role invoke exactly the relay function, from a policy of its own', () => {
    const withLambda = identityPolicies(resources).filter((p) => p.statements.some(grantsLambda));
    expect(withLambda.map((p) => p.id)).toHaveLength(1);
    const [policy] = withLambda;
    expect(policy?.roles).toEqual([{ Ref: relayRoleId }]);
    expect(policy?.statements).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [relayId, 'Arn'] } },
    ]);
    // Not the default policy the function waits for: the function's ARN there would be circular.
    expect(asList(resources[relayId]?.DependsOn ?? [])).not.toContain(policy?.id);
    expect(policy?.id).not.toMatch(/DefaultPolicy/);
  });

  it('has no dependency cycle among its resources (CloudFormation would refuse it)', () => {
    expect(() => Template.fromStack(stack)).not.toThrow();
  });

  it('alarms when no relay heartbeat arrived in a minute, on the metric the relay publishes', () => {
    const alarm = stack.getLogicalId(
      everynode.pipelineAlarms.relayNotWatching.node.defaultChild as CfnElement,
    );
    expect(everynode.pipelineAlarms.relayNotWatching.node.path).toBe(
      'Everynode/Default/Alarms/RelayNotWatching',
    );
    expect(resources[alarm]?.Properties).toEqual({
      AlarmDescription: 'No relay heartbeat in a minute: nobody has watched the cluster for about a minute',
      Namespace: 'everynode',
      MetricName: 'RelayHeartbeats',
      Dimensions: [{ Name: 'service', Value: 'everynode-relay' }],
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'breaching',
    });
    // Powertools Metrics publishes under the function's namespace and service name.
    expect(variablesOf(resources, relayId)).toMatchObject({
      POWERTOOLS_METRICS_NAMESPACE: 'everynode',
      POWERTOOLS_SERVICE_NAME: 'everynode-relay',
    });
  });
});
