/**
 * The KubePort methods that write a node: the node readiness gate's taints and released marker, and
 * its `everynode.dev/DaemonSetsReady` condition (docs/design.md, 26. Node readiness gates).
 */
import type { Configuration, V1Node, V1Taint } from '@kubernetes/client-node';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import { toJson } from '../codec/object-codec.ts';
import type { KubePort } from '../kube-port.ts';
import { kubeCall, withKind } from '../requests/kube-call.ts';
import { apiPath, sendKubeRequest } from '../requests/kube-request.ts';

type NodeWriteMethods = Pick<KubePort, 'patchNodeGate' | 'patchNodeCondition'>;

const NODE = '/api/v1/nodes/{name}';

/** What a taint list looks like in a log line: `key=value:Effect, …`. */
function taintsText(taints: readonly Readonly<V1Taint>[]): string {
  if (taints.length === 0) return 'none';
  return taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ');
}

/**
 * The merge patch of a gate write: the whole taint list (a merge patch replaces a list; null when
 * empty, which removes the field as `kubectl taint … -` leaves it), the annotations set, and the
 * resourceVersion the node was read at, which makes the API server refuse the patch with 409
 * Conflict when the node changed since — so a taint another controller added, or a status the
 * kubelet posted, in between is never written over.
 */
function gatePatchBody(
  resourceVersion: string,
  taints: readonly Readonly<V1Taint>[],
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, unknown> {
  const node: V1Node = {
    metadata: { resourceVersion, ...(annotations ? { annotations: { ...annotations } } : {}) },
    spec: { taints: taints.map((t) => ({ ...t })) },
  };
  const body = toJson(node, 'V1Node');
  if (taints.length === 0) body.spec = { taints: null };
  return body;
}

/** The node write methods of the port, sending through `configuration`. */
export function nodeOperations(configuration: Configuration): NodeWriteMethods {
  return {
    async patchNodeGate(name, resourceVersion, taints, annotations) {
      const doing = `setting the taints of node ${name} at resourceVersion ${resourceVersion} to ${taintsText(taints)}`;
      const node = await kubeCall(doing, () =>
        sendKubeRequest<V1Node>(configuration, {
          method: 'PATCH',
          path: apiPath(NODE, { name }),
          body: {
            value: gatePatchBody(resourceVersion, taints, annotations),
            type: 'any',
            contentType: PatchStrategy.MergePatch,
          },
          answer: { type: 'V1Node' },
        }),
      );
      return withKind(node, 'v1', 'Node');
    },
    async patchNodeCondition(name, condition) {
      // A strategic merge patch merges status.conditions by `type` (patchMergeKey): the kubelet's
      // conditions, and fields of this one the patch leaves out, stay as they are.
      const body = toJson({ status: { conditions: [condition] } } satisfies V1Node, 'V1Node');
      const doing = `setting condition ${condition.type}=${condition.status} of node ${name}`;
      const node = await kubeCall(doing, () =>
        sendKubeRequest<V1Node>(configuration, {
          method: 'PATCH',
          path: apiPath(`${NODE}/status`, { name }),
          body: { value: body, type: 'any', contentType: PatchStrategy.StrategicMergePatch },
          answer: { type: 'V1Node' },
        }),
      );
      return withKind(node, 'v1', 'Node');
    },
  };
}
