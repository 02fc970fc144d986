/**
 * The KubePort methods on pods and nodes (the core/v1 API).
 */
import type { Configuration, V1Node, V1NodeList, V1Pod, V1PodList } from '@kubernetes/client-node';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { JsonPatchOperation } from '../../core/in-place/in-place-patch.ts';
import type { KubePort } from '../kube-port.ts';
import {
  kubeCall,
  kubeGet,
  listParameters,
  listResultOf,
  readResourceVersion,
  withKind,
} from '../requests/kube-call.ts';
import { apiPath, listQuery, sendKubeRequest } from '../requests/kube-request.ts';

type PodAndNodeMethods = Pick<
  KubePort,
  | 'getNode'
  | 'listNodes'
  | 'listPods'
  | 'createPod'
  | 'deletePod'
  | 'patchPodOwnerReferences'
  | 'jsonPatchPod'
  | 'jsonPatchPodResize'
>;

function nodeOf(pod: Readonly<V1Pod>): string {
  const term =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0];
  return pod.spec?.nodeName ?? term?.matchFields?.[0]?.values?.[0] ?? '(unpinned)';
}

/** Sends the JSON patch `operations` to the pod, or to its `subresource`; resolves to the pod as stored. */
async function sendJsonPatch(
  configuration: Configuration,
  target: Readonly<{ namespace: string; name: string; subresource?: 'resize' }>,
  operations: readonly JsonPatchOperation[],
): Promise<V1Pod> {
  const { namespace, name, subresource } = target;
  const what = subresource === undefined ? 'patching pod' : `patching the ${subresource} of pod`;
  const sub = subresource === undefined ? '' : `/${subresource}`;
  const pod = await kubeCall(
    `${what} ${namespace}/${name} (${operations.length} JSON patch operations)`,
    () =>
      sendKubeRequest<V1Pod>(configuration, {
        method: 'PATCH',
        path: `${apiPath('/api/v1/namespaces/{namespace}/pods/{name}', { namespace, name })}${sub}`,
        body: { value: operations, type: 'any', contentType: PatchStrategy.JsonPatch },
        answer: { type: 'V1Pod' },
      }),
  );
  return withKind(pod, 'v1', 'Pod');
}

/** The pod and node methods of the port, sending through `configuration`. */
export function podOperations(configuration: Configuration): PodAndNodeMethods {
  return {
    jsonPatchPod: (namespace, name, operations) =>
      sendJsonPatch(configuration, { namespace, name }, operations),
    jsonPatchPodResize: (namespace, name, operations) =>
      sendJsonPatch(configuration, { namespace, name, subresource: 'resize' }, operations),
    async getNode(name, options) {
      // resourceVersion=0 (watch cache) only when the caller said a stale node is safe.
      const node = await kubeGet(`reading node ${name}`, () =>
        sendKubeRequest<V1Node>(configuration, {
          method: 'GET',
          path: apiPath('/api/v1/nodes/{name}', { name }),
          query: { resourceVersion: readResourceVersion(options) },
          answer: { type: 'V1Node' },
        }),
      );
      return node && withKind(node, 'v1', 'Node');
    },
    // The LISTs of nodes and pods are the large answers: decoded by the compiled decoder.
    async listNodes(options) {
      const list = await kubeCall('listing nodes', () =>
        sendKubeRequest<V1NodeList>(configuration, {
          method: 'GET',
          path: '/api/v1/nodes',
          query: listQuery(listParameters(options)),
          answer: { type: 'V1NodeList', compiled: true },
        }),
      );
      return listResultOf(list, 'v1', 'Node');
    },
    async listPods(options = {}) {
      const { namespace } = options;
      const where = namespace ? ` in namespace ${namespace}` : '';
      const selector = [options.labelSelector, options.fieldSelector].filter(Boolean).join(' ');
      const list = await kubeCall(`listing pods${where}${selector ? ` matching ${selector}` : ''}`, () =>
        sendKubeRequest<V1PodList>(configuration, {
          method: 'GET',
          path: namespace ? apiPath('/api/v1/namespaces/{namespace}/pods', { namespace }) : '/api/v1/pods',
          query: listQuery(listParameters(options)),
          answer: { type: 'V1PodList', compiled: true },
        }),
      );
      return listResultOf(list, 'v1', 'Pod');
    },
    async createPod(pod) {
      const namespace = pod.metadata?.namespace ?? 'default';
      const doing = `creating pod ${namespace}/${pod.metadata?.name ?? '?'} for node ${nodeOf(pod)}`;
      // Creates are the pipeline's most frequent write: their answer is decoded by the compiled decoder.
      const created = await kubeCall(doing, () =>
        sendKubeRequest<V1Pod>(configuration, {
          method: 'POST',
          path: apiPath('/api/v1/namespaces/{namespace}/pods', { namespace }),
          body: { value: pod, type: 'V1Pod' },
          answer: { type: 'V1Pod', compiled: true },
        }),
      );
      return withKind(created, 'v1', 'Pod');
    },
    async deletePod(target, options = {}) {
      const { namespace, name, uid, resourceVersion } = target;
      const body = { preconditions: { uid, resourceVersion }, ...options };
      await kubeCall(
        `deleting pod ${namespace}/${name} (uid ${uid}, resourceVersion ${resourceVersion ?? 'any'})`,
        () =>
          sendKubeRequest<V1Pod>(configuration, {
            method: 'DELETE',
            path: apiPath('/api/v1/namespaces/{namespace}/pods/{name}', { namespace, name }),
            body: { value: body, type: 'V1DeleteOptions' },
            answer: { type: 'V1Pod' },
          }),
      );
    },
    async patchPodOwnerReferences(patch) {
      const { namespace, name, uid, resourceVersion, ownerReferences, labels } = patch;
      // A merge patch replaces the whole list; uid and resourceVersion in the patch make the API
      // server refuse it if the pod changed (as upstream controller_ref_manager's patches carry uid).
      // Labels merge key by key, null removing one.
      const body = { metadata: { uid, resourceVersion, ownerReferences, ...(labels ? { labels } : {}) } };
      const owners = ownerReferences.map((ref) => `${ref.kind}/${ref.name}`).join(', ') || 'none';
      const pod = await kubeCall(`setting the owners of pod ${namespace}/${name} to ${owners}`, () =>
        sendKubeRequest<V1Pod>(configuration, {
          method: 'PATCH',
          path: apiPath('/api/v1/namespaces/{namespace}/pods/{name}', { namespace, name }),
          body: { value: body, type: 'any', contentType: PatchStrategy.MergePatch },
          answer: { type: 'V1Pod' },
        }),
      );
      return withKind(pod, 'v1', 'Pod');
    },
  };
}
