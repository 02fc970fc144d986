import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { EnvironmentName } from '../../lib/config/environment-names.ts';
import type { FunctionAwsCalls } from '../../lib/config/function-aws-calls.ts';

/**
 * What Lambda's event source mapping does with the function's role to poll an SQS queue: receive,
 * delete, hide again for a retry, and read the queue's attributes (AWS Lambda developer guide,
 * "Execution role permissions" for SQS event sources).
 */
export const CONSUME_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
] as const;

/**
 * Grants `fn`'s role exactly what its table of AWS calls names (lib/<function>/*-aws-calls.ts) and
 * the consume rights of the queue its event source polls, nothing more: one statement per resource,
 * its actions sorted. `arnOf` maps the environment variable through which the function learns of a
 * resource to that resource's ARN. CDK's grant helpers would add actions no code makes
 * (`sqs:GetQueueUrl` with every send, `ssm:GetParameterHistory` with a read); the offline
 * deployment test runs the bundles under these policies, so anything missing shows there.
 *
 * Calls on the function itself (`own-function`: the relay invoking its successor) go into a policy
 * of their own, `<function id>OwnFunctionCalls` next to the function: the function depends on its
 * role's default policy, so its ARN there would make it depend on itself.
 */
export function grantAwsCalls(
  fn: IFunction,
  table: Readonly<FunctionAwsCalls>,
  arnOf: (variable: EnvironmentName) => string,
): void {
  const actionsByResource = new Map<string, Set<string>>();
  const ownFunctionActions = new Set<string>();
  const add = (resource: string, actions: readonly string[]) => {
    const set = actionsByResource.get(resource) ?? new Set<string>();
    for (const action of actions) set.add(action);
    actionsByResource.set(resource, set);
  };
  if (table.consumes) add(arnOf(table.consumes), CONSUME_ACTIONS);
  for (const call of table.calls) {
    if (call.resource.kind === 'named-by') add(arnOf(call.resource.variable), [call.action]);
    else if (call.resource.kind === 'any') add('*', [call.action]);
    else if (call.resource.kind === 'own-function') ownFunctionActions.add(call.action);
  }
  // Into the role's default policy (Function.addToRolePolicy makes a policy per statement under
  // the createNewPoliciesWithAddToRolePolicy feature flag).
  const role = fn.role;
  if (!role) throw new Error(`${fn.node.path} has no role to grant its AWS calls to`);
  for (const [resource, actions] of actionsByResource) {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions].sort(), resources: [resource] }));
  }
  if (ownFunctionActions.size > 0) {
    const scope = fn.node.scope;
    if (!scope) throw new Error(`${fn.node.path} has no scope to put its own-function policy in`);
    new Policy(scope, `${fn.node.id}OwnFunctionCalls`, {
      roles: [role],
      statements: [
        new PolicyStatement({ actions: [...ownFunctionActions].sort(), resources: [fn.functionArn] }),
      ],
    });
  }
}
