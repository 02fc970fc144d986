/**
 * The AWS calls of the relay function (functions/relay): what its role must be granted, checked
 * against the CDK stack's template by test/infra. Keep it in step with the code: test/functions
 * compares the operations with the SDK commands the function's modules send.
 */
import { EnvironmentName } from '../../config/environment-names.ts';
import type { FunctionAwsCalls } from '../../config/function-aws-calls.ts';
import { EKS_TOKEN_AWS_CALL } from '../../kube/connection/eks-token.ts';

/** The relay's AWS calls; it consumes no queue (its watchdog schedule and its predecessor invoke it). */
export const RELAY_AWS_CALLS: FunctionAwsCalls = {
  calls: [
    {
      operation: 'PutEvents',
      action: 'events:PutEvents',
      resource: { kind: 'named-by', variable: EnvironmentName.eventBusName },
      purpose: 'the triggers the watches produce (lib/queue/event-bus-eventbridge.ts)',
    },
    {
      operation: 'GetParameter',
      action: 'ssm:GetParameter',
      resource: { kind: 'named-by', variable: EnvironmentName.relayCheckpointParameter },
      purpose: 'the resource versions a run resumes its watches from (run/checkpoint-ssm.ts)',
    },
    {
      operation: 'PutParameter',
      action: 'ssm:PutParameter',
      resource: { kind: 'named-by', variable: EnvironmentName.relayCheckpointParameter },
      purpose: 'the checkpoint written while and after a run (run/checkpoint-ssm.ts)',
    },
    {
      operation: 'Invoke',
      action: 'lambda:InvokeFunction',
      resource: { kind: 'own-function' },
      purpose: 'a run invoking its successor before its period ends (run/successor-lambda.ts)',
    },
    EKS_TOKEN_AWS_CALL,
  ],
};
