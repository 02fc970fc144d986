/**
 * The AWS calls of the router function (functions/router): what its role must be granted, checked
 * against the CDK stack's template by test/infra. Keep it in step with the code: test/functions
 * compares the operations with the SDK commands the function's modules send.
 */
import { EnvironmentName } from '../config/environment-names.ts';
import type { FunctionAwsCalls } from '../config/function-aws-calls.ts';
import { EKS_TOKEN_AWS_CALL } from '../kube/connection/eks-token.ts';

/** The router's AWS calls; it consumes the ingress queue. */
export const ROUTER_AWS_CALLS: FunctionAwsCalls = {
  consumes: EnvironmentName.ingressQueueUrl,
  calls: [
    {
      operation: 'SendMessageBatch',
      action: 'sqs:SendMessage',
      resource: { kind: 'named-by', variable: EnvironmentName.workQueueUrl },
      purpose: 'work messages for reconcile (lib/queue/sqs-senders.ts sqsWorkSender)',
    },
    {
      operation: 'SendMessageBatch',
      action: 'sqs:SendMessage',
      resource: { kind: 'named-by', variable: EnvironmentName.ingressQueueUrl },
      purpose: 'delayed work back to its own queue: requeues re-delayed, coalesced status refreshes',
    },
    {
      operation: 'DescribeInstances',
      action: 'ec2:DescribeInstances',
      resource: { kind: 'any' },
      purpose: 'the private DNS name of an EC2 instance, for nodes without spec.providerID',
    },
    EKS_TOKEN_AWS_CALL,
  ],
};
