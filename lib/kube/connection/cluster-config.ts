/**
 * How a function reaches the cluster, read from the environment: the variables every function
 * shares (managed kind, EKS endpoint and CA, or a kubeconfig locally, request budget) and what they
 * mean. The reconcile, relay and router configurations extend the schema with their own variables.
 */
import * as z from 'zod';
import { EnvironmentName } from '../../config/environment-names.ts';
import { FunctionConfigError } from '../../config/function-config-error.ts';
import { DEFAULT_MANAGED_KIND, managedKinds } from '../managed-kind.ts';

const nonEmpty = z.string().trim().min(1);

/** The variables that say how to reach the cluster and how fast (shared by every function). */
export const clusterEnvironmentSchema = z.object({
  [EnvironmentName.managedKind]: z.enum(managedKinds).default(DEFAULT_MANAGED_KIND),
  [EnvironmentName.clusterName]: nonEmpty.optional(),
  [EnvironmentName.clusterEndpoint]: nonEmpty.optional(),
  [EnvironmentName.clusterCa]: nonEmpty.optional(),
  [EnvironmentName.kubeconfig]: nonEmpty.optional(),
  KUBECONFIG: nonEmpty.optional(),
  AWS_REGION: nonEmpty.optional(),
  AWS_DEFAULT_REGION: nonEmpty.optional(),
  [EnvironmentName.apiQps]: z.coerce.number().positive().default(50),
});

type ClusterEnvironment = z.infer<typeof clusterEnvironmentSchema>;

/** The cluster `env` names: EKS (endpoint, CA, region) when an endpoint is set, else a kubeconfig. */
export function clusterConfigOf(env: Readonly<ClusterEnvironment>, what: string): ClusterConfig {
  const endpoint = env[EnvironmentName.clusterEndpoint];
  if (!endpoint) {
    const path = env[EnvironmentName.kubeconfig] ?? env.KUBECONFIG;
    return { type: 'kubeconfig', ...(path ? { path } : {}) };
  }
  const name = env[EnvironmentName.clusterName];
  const ca = env[EnvironmentName.clusterCa];
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!name || !ca || !region) {
    throw new FunctionConfigError(
      `reading the ${what} configuration: ${EnvironmentName.clusterEndpoint} needs ${EnvironmentName.clusterName}, ${EnvironmentName.clusterCa} and AWS_REGION`,
    );
  }
  return { type: 'eks', name, endpoint, ca, region };
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
