/**
 * The KubePort method on the pods/status subresource: conditions set by their type.
 */
import type { Configuration, V1Pod } from '@kubernetes/client-node';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import { toJson } from '../codec/object-codec.ts';
import type { KubePort } from '../kube-port.ts';
import { kubeCall, withKind } from '../requests/kube-call.ts';
import { apiPath, sendKubeRequest } from '../requests/kube-request.ts';

/** The pods/status method of the port, sending through `configuration`. */
export function podStatusOperations(configuration: Configuration): Pick<KubePort, 'patchPodConditions'> {
  return {
    async patchPodConditions(target, conditions) {
      const { namespace, name, uid, resourceVersion } = target;
      // A strategic merge patch merges status.conditions by `type` (patchMergeKey): the kubelet's
      // and the scheduler's conditions stay as they are. uid (and resourceVersion, when given) in
      // the patch make the API server refuse it with 409 Conflict when the pod is not the one read.
      const pod: V1Pod = {
        metadata: { uid, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
        status: { conditions: conditions.map((c) => ({ ...c })) },
      };
      const body = toJson(pod, 'V1Pod');
      const what = conditions.map((c) => `${c.type}=${c.status}`).join(', ');
      const patched = await kubeCall(`setting condition ${what} of pod ${namespace}/${name}`, () =>
        sendKubeRequest<V1Pod>(configuration, {
          method: 'PATCH',
          path: `${apiPath('/api/v1/namespaces/{namespace}/pods/{name}', { namespace, name })}/status`,
          body: { value: body, type: 'any', contentType: PatchStrategy.StrategicMergePatch },
          answer: { type: 'V1Pod' },
        }),
      );
      return withKind(patched, 'v1', 'Pod');
    },
  };
}
