/**
 * The configuration of the reconcile function, read from the environment in this one place
 * (the variables the CDK stack sets; see infra/everynode-stack.ts). Locally a kubeconfig
 * (`EVERYNODE_KUBECONFIG` or `KUBECONFIG`) replaces the cluster endpoint variables, and
 * `EVERYNODE_SQS_ENDPOINT` points the SQS client at an emulator.
 */
import * as z from 'zod';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
  FunctionConfigError,
} from '../kube/cluster-config.ts';
import type { managedKinds } from '../kube/managed-kind.ts';

const queueUrl = z.string().regex(/^https?:\/\/\S+$/, 'expected an SQS queue URL');

const environmentSchema = clusterEnvironmentSchema.extend({
  EVERYNODE_API_BURST: z.coerce.number().positive().optional(),
  // Not z.url(): local emulators answer queue URLs such as http://sqs.us-east-1.127.0.0.1:4566/…,
  // which the WHATWG URL parser refuses (a host ending in a number must be an IPv4 address).
  EVERYNODE_WORK_QUEUE_URL: queueUrl,
  EVERYNODE_WORK_DLQ_URL: queueUrl,
  EVERYNODE_INGRESS_QUEUE_URL: queueUrl,
  EVERYNODE_SQS_ENDPOINT: z.url().optional(),
});

/** The reconcile function's settings. */
export interface ReconcileConfig {
  readonly managedKind: (typeof managedKinds)[number];
  readonly cluster: ClusterConfig;
  /** Client-side request budget: sustained requests per second, and the burst after a quiet spell. */
  readonly apiQps: number;
  readonly apiBurst: number;
  readonly queues: { readonly work: string; readonly workDlq: string; readonly ingress: string };
  /** An SQS endpoint override (the local emulator); undefined on AWS. */
  readonly sqsEndpoint?: string;
}

/**
 * The configuration in `env`; throws a FunctionConfigError naming every bad variable. The budget
 * burst defaults to the QPS (one second's worth), so a cold start cannot exceed an API server
 * limit set at the same rate.
 */
export function reconcileConfigFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): ReconcileConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new FunctionConfigError(
      `reading the reconcile configuration from the environment: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    );
  }
  const e = parsed.data;
  return {
    managedKind: e.EVERYNODE_MANAGED_KIND,
    cluster: clusterConfigOf(e, 'reconcile'),
    apiQps: e.EVERYNODE_API_QPS,
    apiBurst: Math.max(1, Math.floor(e.EVERYNODE_API_BURST ?? e.EVERYNODE_API_QPS)),
    queues: {
      work: e.EVERYNODE_WORK_QUEUE_URL,
      workDlq: e.EVERYNODE_WORK_DLQ_URL,
      ingress: e.EVERYNODE_INGRESS_QUEUE_URL,
    },
    ...(e.EVERYNODE_SQS_ENDPOINT ? { sqsEndpoint: e.EVERYNODE_SQS_ENDPOINT } : {}),
  };
}
