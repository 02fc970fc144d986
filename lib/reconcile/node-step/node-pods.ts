/** The node step's reads of the pods on its node: one LIST while the node exists, two once it is gone. */
import type { V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { pairPodsQuery } from '../reads/selector-query.ts';

/**
 * The pods bound to `nodeName`, from one LIST that may be served from the watch cache. Pods made
 * for the node but not yet bound are not in it: a create the plan then makes uses the same
 * deterministic name and fails with 409 AlreadyExists, and a stale pod makes a delete that fails
 * its preconditions — so one LIST is enough while the node exists (the pair step lists by the node
 * label instead).
 */
export async function podsBoundTo(deps: ReconcileDeps, nodeName: string): Promise<V1Pod[]> {
  const bound = await deps.ports.kube.listPods({
    fieldSelector: `spec.nodeName=${nodeName}`,
    allowStale: true,
  });
  return bound.items.filter((pod) => targetNodeName(pod) === nodeName);
}

/**
 * For a node that is gone: its bound pods and the pods everynode made for it that were never bound
 * (labelled `everynode.dev/node`), all of which must go.
 */
export async function withUnboundPods(
  deps: ReconcileDeps,
  nodeName: string,
  bound: V1Pod[],
): Promise<V1Pod[]> {
  const unbound = await deps.ports.kube.listPods({
    labelSelector: pairPodsQuery(nodeName),
    fieldSelector: 'spec.nodeName=',
    allowStale: true,
  });
  const known = new Set(bound.map((pod) => pod.metadata?.uid));
  const made = unbound.items.filter(
    (pod) => !known.has(pod.metadata?.uid) && targetNodeName(pod) === nodeName,
  );
  return [...bound, ...made];
}
