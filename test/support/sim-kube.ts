/** A KubePort over the simulated cluster's own kubeconfig: the real client, over HTTP. */

import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';

/** The KubePort of `sim`, managing `managedKind` (default `apps/v1`), calling as `userAgent`. */
export function kubePortOf(
  sim: SimCluster,
  userAgent: string,
  managedKind: ManagedKind = 'apps/v1',
): KubePort {
  return createKubePort({
    connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
    managedKind,
    userAgent,
  });
}
