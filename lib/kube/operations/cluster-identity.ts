/**
 * The KubePort method telling clusters apart: the `kube-system` namespace's uid, with the API
 * server's URL. kube-apiserver creates the namespace when the cluster is first started and never
 * deletes it (the namespace lifecycle admission plugin refuses to), so its uid names the cluster's
 * data: a restore of its etcd keeps it, a new cluster under the same name or URL gets another.
 */
import type { Configuration, V1Namespace } from '@kubernetes/client-node';
import { EverynodeError } from '../../errors/everynode-error.ts';
import type { KubeConnection } from '../connection/kube-connection.ts';
import type { KubePort } from '../kube-port.ts';
import { kubeCall } from '../requests/kube-call.ts';
import { apiPath, sendKubeRequest } from '../requests/kube-request.ts';

/** The namespace every cluster has from its start. */
export const IDENTITY_NAMESPACE = 'kube-system';

/** The API server answered a namespace without a uid: it is not a Kubernetes API server. */
export class ClusterIdentityError extends EverynodeError {
  constructor(message: string) {
    super(message, false);
  }
}

/** The identity method of the port over `connection`. */
export function clusterIdentityOperations(
  configuration: Configuration,
  connection: Readonly<KubeConnection>,
): Pick<KubePort, 'getClusterIdentity'> {
  return {
    async getClusterIdentity() {
      const doing = `reading namespace ${IDENTITY_NAMESPACE} (the identity of the cluster at ${connection.server})`;
      const namespace = await kubeCall(doing, () =>
        sendKubeRequest<V1Namespace>(configuration, {
          method: 'GET',
          path: apiPath('/api/v1/namespaces/{name}', { name: IDENTITY_NAMESPACE }),
          answer: { type: 'V1Namespace' },
        }),
      );
      const kubeSystemUid = namespace.metadata?.uid;
      if (!kubeSystemUid) throw new ClusterIdentityError(`${doing}: the namespace has no uid`);
      return { server: connection.server.replace(/\/+$/, ''), kubeSystemUid };
    },
  };
}
