/**
 * The configuration of the relay function, read from the environment in this one place (the
 * variables the CDK stack sets, infra/everynode-stack.ts). Locally a kubeconfig (`EVERYNODE_KUBECONFIG`
 * or `KUBECONFIG`) replaces the cluster endpoint variables.
 */
import * as z from 'zod';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
  FunctionConfigError,
} from '../kube/cluster-config.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';

const nonEmpty = z.string().trim().min(1);

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
