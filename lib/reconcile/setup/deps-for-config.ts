/**
 * The reconcile deps from the function configuration, the connection made from it (a kubeconfig
 * or EKS): for `everynode run`, tests and benchmarks. The reconcile function loads its connection
 * itself and builds the deps with `reconcileDepsFor` (setup/deps-for-connection.ts).
 */
import { connectionOf } from '../../kube/connection/cluster-connection.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { type ReconcileDepsOptions, reconcileDepsFor } from './deps-for-connection.ts';

export { RECONCILE_USER_AGENT, type ReconcileDepsOptions } from './deps-for-connection.ts';

/** The deps of the reconcile steps for `options.config`. */
export function buildReconcileDeps(options: Readonly<ReconcileDepsOptions>): ReconcileDeps {
  return reconcileDepsFor(connectionOf(options.config.cluster), options);
}
