/**
 * How a function reaches the cluster, read from the environment: the variables every function
 * shares (managed kind, EKS endpoint and CA, or a kubeconfig locally, request budget) and what they
 * mean. The reconcile, relay and router configurations extend the schema with their own variables.
 */
import * as z from 'zod';
import { EverynodeError } from '../errors/everynode-error.ts';
import { DEFAULT_MANAGED_KIND, managedKinds } from './managed-kind.ts';

const nonEmpty = z.string().trim().min(1);

/** The variables that say how to reach the cluster and how fast (shared by every function). */
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

/** The configuration is unusable; the function cannot start. Not retryable. */
export class FunctionConfigError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}
