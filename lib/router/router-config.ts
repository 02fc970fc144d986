/**
 * The configuration of the router function, read from the environment in this one place (the
 * variables the CDK stack sets). `EVERYNODE_SQS_ENDPOINT` points the SQS client at an emulator.
 */
import * as z from 'zod';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
  FunctionConfigError,
} from '../kube/cluster-config.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';

const routerEnvironmentSchema = clusterEnvironmentSchema.extend({
  EVERYNODE_WORK_QUEUE_URL: z.string().trim().min(1),
  EVERYNODE_INGRESS_QUEUE_URL: z.string().trim().min(1),
  EVERYNODE_SQS_ENDPOINT: z.string().trim().min(1).optional(),
  EVERYNODE_STATUS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(60).default(2),
});

/** The router function's settings. */
export interface RouterConfig {
  readonly managedKind: ManagedKind;
  readonly cluster: ClusterConfig;
  readonly apiQps: number;
  readonly queues: { readonly work: string; readonly ingress: string };
  readonly sqsEndpoint?: string;
  /** Coalescing window of status refreshes (pipeline design 9). */
  readonly statusWindowSeconds: number;
}

/** The router configuration in `env`; throws a FunctionConfigError naming every bad variable. */
export function routerConfigFromEnvironment(env: Readonly<Record<string, string | undefined>>): RouterConfig {
  const parsed = routerEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new FunctionConfigError(
      `reading the router configuration from the environment: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    );
  }
  const e = parsed.data;
  return {
    managedKind: e.EVERYNODE_MANAGED_KIND,
    cluster: clusterConfigOf(e, 'router'),
    apiQps: e.EVERYNODE_API_QPS,
    queues: { work: e.EVERYNODE_WORK_QUEUE_URL, ingress: e.EVERYNODE_INGRESS_QUEUE_URL },
    ...(e.EVERYNODE_SQS_ENDPOINT ? { sqsEndpoint: e.EVERYNODE_SQS_ENDPOINT } : {}),
    statusWindowSeconds: e.EVERYNODE_STATUS_WINDOW_SECONDS,
  };
}
