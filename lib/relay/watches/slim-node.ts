/**
 * A node reduced to what the relay reads of it, for the nodes a LIST hands on whole (to the gate
 * timers, `filters/gate-wait.ts`): a node as the API server sends it carries its images, addresses,
 * capacity, daemon endpoints and heartbeats — several kilobytes each, 20,000 times over.
 */
import type { V1Node } from '@kubernetes/client-node';
import { GATE_RELEASED_ANNOTATION } from '../../core/node-gates/gate-decision.ts';
import { sizingAllocatable } from '../../core/node-sizing/sizing-allocatable.ts';

/**
 * `node` with only the fields the relay reads (its facets, `cluster-view/decision-facets.ts`; its hint,
 * `nodeHintOf`): identity and times, labels, the readiness gate's released marker, taints,
 * unschedulable, the conditions without their heartbeats, and the allocatable cpu, memory and pods
 * node sizing reads. Its facets and hint are the node's.
 */
export function slimNode(node: Readonly<V1Node>): V1Node {
  const { name, uid, resourceVersion, creationTimestamp, deletionTimestamp, labels, annotations } =
    node.metadata ?? {};
  const released = annotations?.[GATE_RELEASED_ANNOTATION];
  // What node sizing reads, which the node's hint carries (a pod the relay hints is sized from it).
  const allocatable = sizingAllocatable(node);
  return {
    ...(node.apiVersion === undefined ? {} : { apiVersion: node.apiVersion }),
    ...(node.kind === undefined ? {} : { kind: node.kind }),
    metadata: {
      name,
      uid,
      resourceVersion,
      creationTimestamp,
      deletionTimestamp,
      labels,
      ...(released === undefined ? {} : { annotations: { [GATE_RELEASED_ANNOTATION]: released } }),
    },
    spec: { taints: node.spec?.taints, unschedulable: node.spec?.unschedulable },
    status: {
      conditions: node.status?.conditions?.map(({ lastHeartbeatTime: _, ...condition }) => condition),
      ...(allocatable === undefined ? {} : { allocatable }),
    },
  };
}
