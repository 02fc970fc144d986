/**
 * The configuration of the reconcile function, read from the environment in this one place
 * (the variables the CDK stack sets; see infra/everynode-stack.ts). Locally a kubeconfig
 * (`EVERYNODE_KUBECONFIG` or `KUBECONFIG`) replaces the cluster endpoint variables, and
 * `EVERYNODE_SQS_ENDPOINT` points the SQS client at an emulator.
 */
import * as z from 'zod';
import { EverynodeError } from '../errors/everynode-error.ts';
import { DEFAULT_MANAGED_KIND, managedKinds } from '../kube/managed-kind.ts';

const nonEmpty = z.string().trim().min(1);
const positive = z.coerce.number().positive();
const queueUrl = z.string().regex(/^https?:\/\/\S+$/, 'expected an SQS queue URL');

const environmentSchema = z
  .object({
    EVERYNODE_MANAGED_KIND: z.enum(managedKinds).default(DEFAULT_MANAGED_KIND),
    EVERYNODE_CLUSTER_NAME: nonEmpty.optional(),
    EVERYNODE_CLUSTER_ENDPOINT: nonEmpty.optional(),
    EVERYNODE_CLUSTER_CA: nonEmpty.optional(),
    EVERYNODE_KUBECONFIG: nonEmpty.optional(),
    KUBECONFIG: nonEmpty.optional(),
    AWS_REGION: nonEmpty.optional(),
    AWS_DEFAULT_REGION: nonEmpty.optional(),
    EVERYNODE_API_QPS: positive.default(50),
    EVERYNODE_API_BURST: positive.optional(),
    // Not z.url(): local emulators answer queue URLs such as http://sqs.us-east-1.127.0.0.1:4566/…,
    // which the WHATWG URL parser refuses (a host ending in a number must be an IPv4 address).
    EVERYNODE_WORK_QUEUE_URL: queueUrl,
    EVERYNODE_WORK_DLQ_URL: queueUrl,
    EVERYNODE_INGRESS_QUEUE_URL: queueUrl,
    EVERYNODE_SQS_ENDPOINT: z.url().optional(),
  })
  .refine(
    (env) => !env.EVERYNODE_CLUSTER_ENDPOINT || (env.EVERYNODE_CLUSTER_NAME && env.EVERYNODE_CLUSTER_CA),
    {
      message: 'EVERYNODE_CLUSTER_ENDPOINT needs EVERYNODE_CLUSTER_NAME and EVERYNODE_CLUSTER_CA',
    },
  )
  .refine((env) => !env.EVERYNODE_CLUSTER_ENDPOINT || env.AWS_REGION || env.AWS_DEFAULT_REGION, {
    message: 'EVERYNODE_CLUSTER_ENDPOINT needs AWS_REGION (set by Lambda) or AWS_DEFAULT_REGION',
  });

/** How to reach the cluster: an EKS endpoint with in-process tokens, or a kubeconfig. */
export type ClusterConfig =
  | {
      readonly type: 'eks';
      readonly name: string;
      readonly endpoint: string;
      readonly ca: string;
      readonly region: string;
    }
  | { readonly type: 'kubeconfig'; readonly path?: string };

/** The reconcile function's settings. */
export interface FunctionConfig {
  readonly managedKind: (typeof managedKinds)[number];
  readonly cluster: ClusterConfig;
  /** Client-side request budget: sustained requests per second, and the burst after a quiet spell. */
  readonly apiQps: number;
  readonly apiBurst: number;
  readonly queues: { readonly work: string; readonly workDlq: string; readonly ingress: string };
  /** An SQS endpoint override (the local emulator); undefined on AWS. */
  readonly sqsEndpoint?: string;
}

/** The configuration is unusable; the function cannot start. Not retryable. */
export class FunctionConfigError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}

/**
 * The configuration in `env`; throws a FunctionConfigError naming every bad variable. The budget
 * burst defaults to the QPS (one second's worth), so a cold start cannot exceed an API server
 * limit set at the same rate.
 */
export function functionConfigFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): FunctionConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new FunctionConfigError(
      `reading the reconcile configuration from the environment: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    );
  }
  const e = parsed.data;
  const kubeconfig = e.EVERYNODE_KUBECONFIG ?? e.KUBECONFIG;
  const cluster: ClusterConfig = e.EVERYNODE_CLUSTER_ENDPOINT
    ? {
        type: 'eks',
        name: e.EVERYNODE_CLUSTER_NAME ?? '',
        endpoint: e.EVERYNODE_CLUSTER_ENDPOINT,
        ca: e.EVERYNODE_CLUSTER_CA ?? '',
        region: e.AWS_REGION ?? e.AWS_DEFAULT_REGION ?? '',
      }
    : { type: 'kubeconfig', ...(kubeconfig ? { path: kubeconfig } : {}) };
  return {
    managedKind: e.EVERYNODE_MANAGED_KIND,
    cluster,
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
