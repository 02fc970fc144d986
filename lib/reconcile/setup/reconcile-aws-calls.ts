/**
 * The AWS calls of the reconcile function (functions/reconcile): what its role must be granted,
 * checked against the CDK stack's template by test/infra. Keep it in step with the code:
 * test/functions compares the operations with the SDK commands the function's modules send.
 */
import { EnvironmentName } from '../../config/environment-names.ts';
import type { FunctionAwsCalls } from '../../config/function-aws-calls.ts';
import { EKS_TOKEN_AWS_CALL } from '../../kube/connection/eks-token.ts';

/** The reconcile function's AWS calls (built in setup/deps-for-config.ts); it consumes the work queue. */
export const RECONCILE_AWS_CALLS: FunctionAwsCalls = {
  consumes: EnvironmentName.workQueueUrl,
  calls: [
    {
      operation: 'SendMessageBatch',
      action: 'sqs:SendMessage',
      resource: { kind: 'named-by', variable: EnvironmentName.workQueueUrl },
      purpose: 'pair work a DaemonSet or node step fans out (sqsWorkSender)',
    },
    {
      operation: 'SendMessageBatch',
      action: 'sqs:SendMessage',
      resource: { kind: 'named-by', variable: EnvironmentName.ingressQueueUrl },
      purpose: 'delayed requeues, through the ingress queue since FIFO queues delay no single message',
    },
    {
      operation: 'SendMessage',
      action: 'sqs:SendMessage',
      resource: { kind: 'named-by', variable: EnvironmentName.workDlqUrl },
      purpose: 'poison messages with the reason why (sqsDeadLetterSender)',
    },
    EKS_TOKEN_AWS_CALL,
  ],
};
