/**
 * The configuration of the relay function, read from the environment in this one place (the
 * variables the CDK stack sets, infra/everynode.ts). Locally a kubeconfig (`EVERYNODE_KUBECONFIG`
 * or `KUBECONFIG`) replaces the cluster endpoint variables.
 */
import * as z from 'zod';
import { EnvironmentName } from '../../config/environment-names.ts';
import { parseEnvironment } from '../../config/parse-environment.ts';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
} from '../../kube/connection/cluster-config.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';

const nonEmpty = z.string().trim().min(1);

const relayEnvironmentSchema = clusterEnvironmentSchema.extend({
  [EnvironmentName.eventBusName]: nonEmpty,
  [EnvironmentName.relayCheckpointParameter]: nonEmpty,
  [EnvironmentName.relayRunSeconds]: z.coerce.number().int().min(10).max(840).default(300),
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
  /** The schedule period: how long one run watches before the overlap (see `run/run.ts`). */
  readonly runSeconds: number;
}

/** The relay configuration in `env`; throws a FunctionConfigError naming every bad variable. */
export function relayConfigFromEnvironment(env: Readonly<Record<string, string | undefined>>): RelayConfig {
  const e = parseEnvironment(relayEnvironmentSchema, env, 'relay');
  return {
    managedKind: e[EnvironmentName.managedKind],
    cluster: clusterConfigOf(e, 'relay'),
    apiQps: e[EnvironmentName.apiQps],
    eventBusName: e[EnvironmentName.eventBusName],
    checkpointParameter: e[EnvironmentName.relayCheckpointParameter],
    runSeconds: e[EnvironmentName.relayRunSeconds],
  };
}
