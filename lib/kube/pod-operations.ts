/**
 * The KubePort methods on pods and nodes, over client-node's CoreV1Api.
 */
import type { V1NodeList, V1Pod, V1PodList } from '@kubernetes/client-node';
import { PatchStrategy } from '@kubernetes/client-node';
import { sendDecoded } from './decoded-call.ts';
import { callOptions, type KubeApis } from './kube-apis.ts';
import {
  kubeCall,
  kubeGet,
  listParameters,
  listResultOf,
  readResourceVersion,
  withKind,
} from './kube-call.ts';
import type { KubePort } from './kube-port.ts';

type PodAndNodeMethods = Pick<
  KubePort,
  'getNode' | 'listNodes' | 'listPods' | 'createPod' | 'deletePod' | 'patchPodOwnerReferences'
>;

function nodeOf(pod: Readonly<V1Pod>): string {
  const term =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0];
  return pod.spec?.nodeName ?? term?.matchFields?.[0]?.values?.[0] ?? '(unpinned)';
}

/** The pod and node methods of the port. */
export function podOperations(apis: KubeApis): PodAndNodeMethods {
  const { core, coreRequests, coreResponses } = apis;
  return {
    async getNode(name, options) {
      // resourceVersion=0 (watch cache) only when the caller said a stale node is safe.
      const query = readResourceVersion(options);
      const node = await kubeGet(`reading node ${name}`, () =>
        core.readNode({ name }, query ? callOptions({ query: { resourceVersion: query } }) : undefined),
      );
      return node && withKind(node, 'v1', 'Node');
    },
    // The LISTs of nodes and pods are the large answers: decoded by the compiled decoder.
    async listNodes(options) {
      const p = listParameters(options);
      const list = await kubeCall('listing nodes', () =>
        sendDecoded<V1NodeList>(apis.configuration, {
          request: coreRequests.listNode(
            undefined,
            undefined,
            p._continue,
            p.fieldSelector,
            p.labelSelector,
            p.limit,
            p.resourceVersion,
            p.resourceVersionMatch,
          ),
          type: 'V1NodeList',
          otherwise: (response) => coreResponses.listNodeWithHttpInfo(response),
        }),
      );
      return listResultOf(list, 'v1', 'Node');
    },
    async listPods(options = {}) {
      const { namespace } = options;
      const where = namespace ? ` in namespace ${namespace}` : '';
      const selector = [options.labelSelector, options.fieldSelector].filter(Boolean).join(' ');
      const p = listParameters(options);
      const list = await kubeCall(`listing pods${where}${selector ? ` matching ${selector}` : ''}`, () =>
        sendDecoded<V1PodList>(apis.configuration, {
          request: namespace
            ? coreRequests.listNamespacedPod(
                namespace,
                undefined,
                undefined,
                p._continue,
                p.fieldSelector,
                p.labelSelector,
                p.limit,
                p.resourceVersion,
                p.resourceVersionMatch,
              )
            : coreRequests.listPodForAllNamespaces(
                undefined,
                p._continue,
                p.fieldSelector,
                p.labelSelector,
                p.limit,
                undefined,
                p.resourceVersion,
                p.resourceVersionMatch,
              ),
          type: 'V1PodList',
          otherwise: (response) =>
            namespace
              ? coreResponses.listNamespacedPodWithHttpInfo(response)
              : coreResponses.listPodForAllNamespacesWithHttpInfo(response),
        }),
      );
      return listResultOf(list, 'v1', 'Pod');
    },
    async createPod(pod) {
      const namespace = pod.metadata?.namespace ?? 'default';
      const doing = `creating pod ${namespace}/${pod.metadata?.name ?? '?'} for node ${nodeOf(pod)}`;
      // Creates are the pipeline's most frequent write: their answer is decoded by the compiled decoder.
      const created = await kubeCall(doing, () =>
        sendDecoded<V1Pod>(apis.configuration, {
          request: coreRequests.createNamespacedPod(namespace, pod),
          type: 'V1Pod',
          otherwise: (response) => coreResponses.createNamespacedPodWithHttpInfo(response),
        }),
      );
      return withKind(created, 'v1', 'Pod');
    },
    async deletePod(target, options = {}) {
      const { namespace, name, uid, resourceVersion } = target;
      const body = { preconditions: { uid, resourceVersion }, ...options };
      await kubeCall(
        `deleting pod ${namespace}/${name} (uid ${uid}, resourceVersion ${resourceVersion ?? 'any'})`,
        () => core.deleteNamespacedPod({ name, namespace, body }),
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
        core.patchNamespacedPod(
          { name, namespace, body },
          callOptions({ headers: { 'Content-Type': PatchStrategy.MergePatch } }),
        ),
      );
      return withKind(pod, 'v1', 'Pod');
    },
  };
}
