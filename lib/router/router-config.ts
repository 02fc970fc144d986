/**
 * The configuration of the router function, read from the environment in this one place (the
 * variables the CDK stack sets). `EVERYNODE_SQS_ENDPOINT` points the SQS client at an emulator.
 */
import * as z from 'zod';
import { EnvironmentName } from '../config/environment-names.ts';
import { parseEnvironment } from '../config/parse-environment.ts';
import {
  type ClusterConfig,
  clusterConfigOf,
  clusterEnvironmentSchema,
} from '../kube/connection/cluster-config.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';

const routerEnvironmentSchema = clusterEnvironmentSchema.extend({
  [EnvironmentName.workQueueUrl]: z.string().trim().min(1),
  [EnvironmentName.ingressQueueUrl]: z.string().trim().min(1),
  [EnvironmentName.sqsEndpoint]: z.string().trim().min(1).optional(),
});

/** The router function's settings. */
export interface RouterConfig {
  readonly managedKind: ManagedKind;
  readonly cluster: ClusterConfig;
  readonly apiQps: number;
  readonly queues: { readonly work: string; readonly ingress: string };
  readonly sqsEndpoint?: string;
}

/** The router configuration in `env`; throws a FunctionConfigError naming every bad variable. */
export function routerConfigFromEnvironment(env: Readonly<Record<string, string | undefined>>): RouterConfig {
  const e = parseEnvironment(routerEnvironmentSchema, env, 'router');
  const sqsEndpoint = e[EnvironmentName.sqsEndpoint];
  return {
    managedKind: e[EnvironmentName.managedKind],
    cluster: clusterConfigOf(e, 'router'),
    apiQps: e[EnvironmentName.apiQps],
    queues: { work: e[EnvironmentName.workQueueUrl], ingress: e[EnvironmentName.ingressQueueUrl] },
    ...(sqsEndpoint ? { sqsEndpoint } : {}),
  };
}
