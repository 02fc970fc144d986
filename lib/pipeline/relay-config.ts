/**
 * The configuration of the relay function, read from the environment in this one place (the
 * variables the CDK stack sets, infra/everynode-stack.ts). Locally a kubeconfig (`EVERYNODE_KUBECONFIG`
 * or `KUBECONFIG`) replaces the cluster endpoint variables.
 */
import * as z from 'zod';
import { DEFAULT_MANAGED_KIND, type ManagedKind, managedKinds } from '../kube/managed-kind.ts';
import { type ClusterConfig, FunctionConfigError } from './function-config.ts';

const nonEmpty = z.string().trim().min(1);

/** The variables that say how to reach the cluster and how fast (shared by the relay and the router). */
export const clusterEnvironmentSchema = z.object({
  EVERYNODE_MANAGED_KIND: z.enum(managedKinds).default(DEFAULT_MANAGED_KIND),
  EVERYNODE_CLUSTER_NAME: nonEmpty.optional(),
  EVERYNODE_CLUSTER_ENDPOINT: nonEmpty.optional(),
  EVERYNODE_CLUSTER_CA: nonEmpty.optional(),
  EVERYNODE_KUBECONFIG: nonEmpty.optional(),
  KUBECONFIG: nonEmpty.optional(),
  AWS_REGION: nonEmpty.optional(),
  AWS_DEFAULT_REGION: nonEmpty.optional(),
  EVERYNODE_API_QPS: z.coerce.number().positive().default(50),
});

type ClusterEnvironment = z.infer<typeof clusterEnvironmentSchema>;

/** The cluster `env` names: EKS (endpoint, CA, region) when an endpoint is set, else a kubeconfig. */
export function clusterConfigOf(env: Readonly<ClusterEnvironment>, what: string): ClusterConfig {
  const endpoint = env.EVERYNODE_CLUSTER_ENDPOINT;
  if (!endpoint) {
    const path = env.EVERYNODE_KUBECONFIG ?? env.KUBECONFIG;
    return { type: 'kubeconfig', ...(path ? { path } : {}) };
  }
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!env.EVERYNODE_CLUSTER_NAME || !env.EVERYNODE_CLUSTER_CA || !region) {
    throw new FunctionConfigError(
      `reading the ${what} configuration: EVERYNODE_CLUSTER_ENDPOINT needs EVERYNODE_CLUSTER_NAME, EVERYNODE_CLUSTER_CA and AWS_REGION`,
    );
  }
  return { type: 'eks', name: env.EVERYNODE_CLUSTER_NAME, endpoint, ca: env.EVERYNODE_CLUSTER_CA, region };
}

const relayEnvironmentSchema = clusterEnvironmentSchema.extend({
  EVERYNODE_EVENT_BUS_NAME: nonEmpty,
  EVERYNODE_RELAY_CHECKPOINT_PARAMETER: nonEmpty,
  EVERYNODE_RELAY_RUN_SECONDS: z.coerce.number().int().min(10).max(840).default(300),
});

/** The relay function's settings. */
export interface RelayConfig {
  readonly managedKind: ManagedKind;
  readonly cluster: ClusterConfig;
  readonly apiQps: number;
  /** The EventBridge bus the triggers go to. */
  readonly eventBusName: string;
  /** The SSM parameter holding the checkpoint. */
  readonly checkpointParameter: string;
  /** The schedule period: how long one run watches before the overlap (see `relay-run.ts`). */
  readonly runSeconds: number;
}

/** The relay configuration in `env`; throws a FunctionConfigError naming every bad variable. */
export function relayConfigFromEnvironment(env: Readonly<Record<string, string | undefined>>): RelayConfig {
  const parsed = relayEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new FunctionConfigError(
      `reading the relay configuration from the environment: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    );
  }
  const e = parsed.data;
  return {
    managedKind: e.EVERYNODE_MANAGED_KIND,
    cluster: clusterConfigOf(e, 'relay'),
    apiQps: e.EVERYNODE_API_QPS,
    eventBusName: e.EVERYNODE_EVENT_BUS_NAME,
    checkpointParameter: e.EVERYNODE_RELAY_CHECKPOINT_PARAMETER,
    runSeconds: e.EVERYNODE_RELAY_RUN_SECONDS,
  };
}
