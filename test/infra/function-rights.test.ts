import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Everynode } from '../../infra/everynode.ts';
import { EnvironmentName } from '../../lib/config/environment-names.ts';
import type { AwsCall, FunctionAwsCalls } from '../../lib/config/function-aws-calls.ts';
import { RECONCILE_AWS_CALLS } from '../../lib/reconcile/setup/reconcile-aws-calls.ts';
import { RELAY_AWS_CALLS } from '../../lib/relay/setup/relay-aws-calls.ts';
import { ROUTER_AWS_CALLS } from '../../lib/router/router-aws-calls.ts';
import { aTestStack, STACK_CONTEXTS } from '../support/test-stack.ts';

type Json = Record<string, unknown>;
type FunctionName = 'relay' | 'router' | 'reconcile';

const tables: Record<FunctionName, FunctionAwsCalls> = {
  relay: RELAY_AWS_CALLS,
  router: ROUTER_AWS_CALLS,
  reconcile: RECONCILE_AWS_CALLS,
};

/** The rights Lambda's event source mapping uses, with the function's role, to poll a queue. */
const consumeActions = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
];

/** One function as the template has it: its ids, its environment and its role's statements. */
interface DeployedFunction {
  readonly functionId: string;
  readonly roleId: string;
  readonly environment: Json;
  readonly statements: readonly Json[];
}

function deployed(stack: Stack, template: Template, fn: NodejsFunction): DeployedFunction {
  const functionId = stack.getLogicalId(fn.node.defaultChild as CfnFunction);
  const roleArn = template.toJSON().Resources[functionId].Properties.Role as { 'Fn::GetAtt': string[] };
  const roleId = roleArn['Fn::GetAtt'][0] ?? '';
  const byRole = (roles: unknown) => JSON.stringify(roles ?? []).includes(`{"Ref":"${roleId}"}`);
  const attached = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
    byRole(p.Properties.Roles),
  );
  const inline = (template.toJSON().Resources[roleId].Properties.Policies ?? []) as Json[];
  const documents = [...attached.map((p) => p.Properties), ...inline].map((p) => p.PolicyDocument as Json);
  return {
    functionId,
    roleId,
    environment: template.toJSON().Resources[functionId].Properties.Environment.Variables,
    statements: documents.flatMap((d) => d.Statement as Json[]),
  };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Whether IAM action pattern `granted` (`*` wildcards, case-insensitive) covers `action`. */
function covers(granted: unknown, action: string): boolean {
  const pattern = String(granted)
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*');
  return new RegExp(`^${pattern}$`, 'i').test(action);
}

/** Whether `resource` is the ARN of the template resource `id` of type `type`. */
function isArnOf(resource: unknown, id: string, type: string): boolean {
  if (type === 'AWS::SSM::Parameter') {
    const text = JSON.stringify(resource);
    return text.includes(`{"Ref":"${id}"}`) && /:ssm:.*:parameter/.test(text);
  }
  return JSON.stringify(resource) === JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });
}

/** The template resource id that environment variable `variable` of `fn` refers to. */
function resourceIdOf(fn: DeployedFunction, variable: string): string {
  const value = fn.environment[variable] as { Ref?: string } | undefined;
  expect(value?.Ref, `${variable} of ${fn.functionId} is a Ref to one resource`).toBeTypeOf('string');
  return value?.Ref ?? '';
}

/** Whether an unconditional Allow statement of `fn` grants `action` on a resource `matches` accepts. */
function allows(fn: DeployedFunction, action: string, matches: (resource: unknown) => boolean): boolean {
  return fn.statements.some(
    (s) =>
      s.Effect === 'Allow' &&
      s.Condition === undefined &&
      asList(s.Action).some((a) => covers(a, action)) &&
      asList(s.Resource).some(matches),
  );
}

/** Whether `resource` is the ARN of `fn` itself. */
function isOwnArn(fn: DeployedFunction, resource: unknown): boolean {
  return isArnOf(resource, fn.functionId, 'AWS::Lambda::Function');
}

/** Whether the template grants `fn` the right `call` needs. */
function isGranted(template: Template, fn: DeployedFunction, call: AwsCall): boolean {
  const { resource } = call;
  if (resource.kind === 'any') return allows(fn, call.action, (r) => r === '*');
  if (resource.kind === 'own-function') return allows(fn, call.action, (r) => isOwnArn(fn, r));
  if (resource.kind === 'eks-access-entry') {
    const principal = JSON.stringify({ 'Fn::GetAtt': [fn.roleId, 'Arn'] });
    return JSON.stringify(template.findResources('AWS::EKS::AccessEntry')).includes(principal);
  }
  const id = resourceIdOf(fn, resource.variable);
  const type = (template.toJSON().Resources as Record<string, { Type: string }>)[id]?.Type ?? '';
  return allows(fn, call.action, (r) => isArnOf(r, id, type));
}

/** The rows of `calls` whose right the template lacks, described; empty when all are granted. */
function missingRights(template: Template, fn: DeployedFunction, calls: readonly AwsCall[]): string[] {
  return calls
    .filter((call) => !isGranted(template, fn, call))
    .map((call) => `${call.action} (${call.operation}) on ${JSON.stringify(call.resource)}`);
}

describe.each(STACK_CONTEXTS)('the function roles $name', ({ context }) => {
  let stack: Stack;
  let everynode: Everynode;
  let template: Template;
  beforeAll(() => {
    ({ stack, everynode } = aTestStack(context));
    template = Template.fromStack(stack);
  });

  describe.each(Object.keys(tables) as FunctionName[])('%s', (name) => {
    it('grant every AWS call of its table on the resource the function is told about', () => {
      const fn = deployed(stack, template, everynode.pipelineFunctions[name]);
      expect(missingRights(template, fn, tables[name].calls)).toEqual([]);
    });

    it('grant nothing beyond its table, its queue polling and its own logs', () => {
      const fn = deployed(stack, template, everynode.pipelineFunctions[name]);
      const table = tables[name];
      const needed = (action: string, resource: unknown): boolean => {
        if (/^logs:(CreateLogStream|PutLogEvents)$/.test(action))
          return JSON.stringify(resource).includes(`"${fn.functionId.replace(/[0-9A-F]{8}$/, '')}Logs`);
        const consumed = table.consumes;
        if (consumed && consumeActions.includes(action))
          return isArnOf(resource, resourceIdOf(fn, consumed), 'AWS::SQS::Queue');
        return table.calls.some((call) => {
          if (call.action !== action) return false;
          if (call.resource.kind === 'any') return resource === '*';
          if (call.resource.kind === 'own-function') return isOwnArn(fn, resource);
          if (call.resource.kind !== 'named-by') return false;
          const id = resourceIdOf(fn, call.resource.variable);
          const type = (template.toJSON().Resources as Record<string, { Type: string }>)[id]?.Type ?? '';
          return isArnOf(resource, id, type);
        });
      };
      const extra = fn.statements.flatMap((s) =>
        asList(s.Action).flatMap((action) =>
          asList(s.Resource)
            .filter((resource) => !needed(String(action), resource))
            .map((resource) => `${String(action)} on ${JSON.stringify(resource)}`),
        ),
      );
      expect(extra).toEqual([]);
    });

    it('let Lambda poll the queue it consumes, and no other', () => {
      const fn = deployed(stack, template, everynode.pipelineFunctions[name]);
      const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))
        .filter((m) => JSON.stringify(m.Properties.FunctionName) === JSON.stringify({ Ref: fn.functionId }))
        .map((m) => m.Properties.EventSourceArn);
      const consumed = tables[name].consumes;
      if (!consumed) {
        expect(mappings).toEqual([]);
        return;
      }
      const queueId = resourceIdOf(fn, consumed);
      expect(mappings).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
      const missing = consumeActions.filter(
        (action) => !allows(fn, action, (r) => isArnOf(r, queueId, 'AWS::SQS::Queue')),
      );
      expect(missing).toEqual([]);
    });
  });
});

const invokeItself: AwsCall = {
  operation: 'Invoke',
  action: 'lambda:InvokeFunction',
  resource: { kind: 'own-function' },
  purpose: 'a case of the rights check',
};

describe('the rights check', () => {
  const { stack, everynode } = aTestStack({});
  const template = Template.fromStack(stack);
  const describeInstances: AwsCall = {
    operation: 'DescribeInstances',
    action: 'ec2:DescribeInstances',
    resource: { kind: 'any' },
    purpose: 'a case of the rights check',
  };
  const cases: { name: string; of: FunctionName; call: AwsCall; missing: boolean }[] = [
    {
      name: 'finds a granted right',
      of: 'router',
      call: sendTo(EnvironmentName.workQueueUrl),
      missing: false,
    },
    {
      name: 'misses a right on another queue',
      of: 'router',
      call: sendTo(EnvironmentName.workDlqUrl),
      missing: true,
    },
    {
      name: 'misses an action granted on no resource',
      of: 'router',
      call: { ...sendTo(EnvironmentName.workQueueUrl), action: 'sqs:PurgeQueue' },
      missing: true,
    },
    {
      name: 'misses an action scoped to one resource when `*` is needed',
      of: 'router',
      call: { ...sendTo(EnvironmentName.workQueueUrl), resource: { kind: 'any' } },
      missing: true,
    },
    { name: 'finds a right on `*`', of: 'router', call: describeInstances, missing: false },
    {
      name: "misses a right only another function's role has",
      of: 'relay',
      call: describeInstances,
      missing: true,
    },
    {
      name: 'finds the right to invoke the function itself',
      of: 'relay',
      call: invokeItself,
      missing: false,
    },
    {
      name: 'misses the right to invoke itself on a function not granted it',
      of: 'router',
      call: invokeItself,
      missing: true,
    },
  ];
  it.each(cases)('$name', ({ of, call, missing }) => {
    const fn = deployed(stack, template, everynode.pipelineFunctions[of]);
    expect(missingRights(template, fn, [call])).toHaveLength(missing ? 1 : 0);
  });
});

function sendTo(variable: EnvironmentName): AwsCall {
  return {
    operation: 'SendMessage',
    action: 'sqs:SendMessage',
    resource: { kind: 'named-by', variable },
    purpose: 'a case of the rights check',
  };
}
