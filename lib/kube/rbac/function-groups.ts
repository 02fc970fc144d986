/**
 * The Kubernetes groups the everynode functions act as: one per function, so each is bound only to
 * the rights its own code needs (a compromised relay cannot write what only the reconciler writes).
 * The CDK stack's EKS access entries map each function's IAM role to its group, and the RBAC
 * manifest (rbac-manifest.ts, rendered to infra/k8s/rbac.yaml) binds each group to its ClusterRole.
 */

/** The three runtimes that call the Kubernetes API. */
export const everynodeFunctions = ['relay', 'router', 'reconcile'] as const;

/** One of the everynode functions. */
export type EverynodeFunction = (typeof everynodeFunctions)[number];

/** The Kubernetes group each function's identity belongs to (EKS access entry `kubernetesGroups`). */
export const FUNCTION_GROUPS: Readonly<Record<EverynodeFunction, string>> = {
  relay: 'everynode:relay',
  router: 'everynode:router',
  reconcile: 'everynode:reconcile',
};

/** The name of the ClusterRole and ClusterRoleBinding of `fn`, e.g. `everynode-relay`. */
export function rbacObjectName(fn: EverynodeFunction): string {
  return `everynode-${fn}`;
}
