/**
 * The configuration of the reconcile function, read from the environment in this one place
 * (the variables the CDK stack sets; see infra/everynode.ts). Locally a kubeconfig
 * (`EVERYNODE_KUBECONFIG` or `KUBECONFIG`) replaces the cluster endpoint variables, and
 * `EVERYNODE_SQS_ENDPOINT` points the SQS client at an emulator.
 */
import * as z from 'zod';
import { EnvironmentName } from '../../config/environment-names.ts';
import { parseEnvironment } from '../../config/parse-environment.ts';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
} from '../../kube/connection/cluster-config.ts';
import type { managedKinds } from '../../kube/managed-kind.ts';

const queueUrl = z.string().regex(/^https?:\/\/\S+$/, 'expected an SQS queue URL');

const environmentSchema = clusterEnvironmentSchema.extend({
  [EnvironmentName.apiBurst]: z.coerce.number().positive().optional(),
  [EnvironmentName.nodeListReuseMinNodes]: z.coerce.number().int().min(0).optional(),
  // Not z.url(): local emulators answer queue URLs such as http://sqs.us-east-1.127.0.0.1:4566/…,
  // which the WHATWG URL parser refuses (a host ending in a number must be an IPv4 address).
  [EnvironmentName.workQueueUrl]: queueUrl,
  [EnvironmentName.workDlqUrl]: queueUrl,
  [EnvironmentName.ingressQueueUrl]: queueUrl,
  [EnvironmentName.sqsEndpoint]: z.url().optional(),
  [EnvironmentName.resizeDeferredSeconds]: z.coerce.number().positive().optional(),
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
  /** The fewest nodes a kept node LIST must hold to be planned on again (default NODE_LIST_REUSE_MIN_NODES). */
  readonly nodeListReuseMinNodes?: number;
  /** How long an in-place resize may stay Deferred before its pod is recreated (default RESIZE_DEFERRED_DEADLINE_SECONDS). */
  readonly resizeDeferredSeconds?: number;
}

/**
 * The configuration in `env`; throws a FunctionConfigError naming every bad variable. The budget
 * burst defaults to the QPS (one second's worth), so a cold start cannot exceed an API server
 * limit set at the same rate.
 */
export function reconcileConfigFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): ReconcileConfig {
  const e = parseEnvironment(environmentSchema, env, 'reconcile');
  const apiQps = e[EnvironmentName.apiQps];
  const sqsEndpoint = e[EnvironmentName.sqsEndpoint];
  const nodeListReuseMinNodes = e[EnvironmentName.nodeListReuseMinNodes];
  const resizeDeferredSeconds = e[EnvironmentName.resizeDeferredSeconds];
  return {
    managedKind: e[EnvironmentName.managedKind],
    cluster: clusterConfigOf(e, 'reconcile'),
    apiQps,
    apiBurst: Math.max(1, Math.floor(e[EnvironmentName.apiBurst] ?? apiQps)),
    queues: {
      work: e[EnvironmentName.workQueueUrl],
      workDlq: e[EnvironmentName.workDlqUrl],
      ingress: e[EnvironmentName.ingressQueueUrl],
    },
    ...(sqsEndpoint ? { sqsEndpoint } : {}),
    ...(nodeListReuseMinNodes !== undefined ? { nodeListReuseMinNodes } : {}),
    ...(resizeDeferredSeconds !== undefined ? { resizeDeferredSeconds } : {}),
  };
}
