/**
 * The reconcile deps from the function configuration, the connection made from it (a kubeconfig
 * or EKS): for `everynode run`, tests and benchmarks. The reconcile function loads its connection
 * itself and builds the deps with `reconcileDepsFor` (reconcile-deps-for.ts).
 */
import { connectionOf } from '../kube/cluster-connection.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';
import { type ReconcileDepsOptions, reconcileDepsFor } from './reconcile-deps-for.ts';

export { RECONCILE_USER_AGENT, type ReconcileDepsOptions } from './reconcile-deps-for.ts';

/** The deps of the reconcile steps for `options.config`. */
export function buildReconcileDeps(options: Readonly<ReconcileDepsOptions>): ReconcileDeps {
  return reconcileDepsFor(connectionOf(options.config.cluster), options);
}
