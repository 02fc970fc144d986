/**
 * The DaemonSet-wide view the rollout plan and the status work on: every node with its placement
 * verdict and the DaemonSet's pods targeting it (upstream getNodesToDaemonPods plus
 * NodeShouldRunDaemonPod per node).
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { isControlledBy } from './controller-ref.ts';
import { targetNodeName } from './daemon-pod.ts';
import type { DaemonSet } from './daemon-set.ts';
import { nodeShouldRunDaemonPod } from './placement.ts';
import { isDeletedTerminalPod } from './pod-availability.ts';

/** One node as the DaemonSet sees it. */
export interface NodeView {
  /** The node's name (for a vanished node, the name its pods target). */
  name: string;
  /** The node, or undefined when pods target a node that no longer exists. */
  node: Readonly<V1Node> | undefined;
  /** A daemon pod should be created here when there is none (false for a vanished node). */
  shouldRun: boolean;
  /** A daemon pod here may keep running (false for a vanished node). */
  shouldContinueRunning: boolean;
  /** The DaemonSet's pods targeting this node, terminal pods already being deleted left out. */
  pods: readonly V1Pod[];
}

/**
 * One view per node in `nodes` (in that order), then one per vanished node that pods still target
 * (sorted by name). Only pods controlled by `ds` are kept; pods without a target node are dropped
 * (upstream logs and skips them), as are terminal pods already being deleted (upstream
 * getNodesToDaemonPods with includeDeletedTerminal=false). Placement tolerates the node readiness
 * gate keys `gateKeys`, as the DaemonSet's pods do (docs/design.md, 26. Node readiness gates); each
 * view keeps its node as it is, gate taints included.
 */
export function nodeViewsFor(
  ds: Readonly<DaemonSet>,
  nodes: readonly Readonly<V1Node>[],
  pods: readonly V1Pod[],
  gateKeys: readonly string[] = [],
): NodeView[] {
  const podsByNode = new Map<string, V1Pod[]>();
  for (const pod of pods) {
    const target = targetNodeName(pod);
    if (target === undefined || !isControlledBy(pod, ds) || isDeletedTerminalPod(pod)) continue;
    podsByNode.set(target, [...(podsByNode.get(target) ?? []), pod]);
  }
  const views: NodeView[] = nodes.map((node) => {
    const name = node.metadata?.name ?? '';
    return { name, node, ...nodeShouldRunDaemonPod(node, ds, gateKeys), pods: podsByNode.get(name) ?? [] };
  });
  const known = new Set(views.map((view) => view.name));
  const vanished = [...podsByNode.keys()].filter((name) => !known.has(name)).sort();
  for (const name of vanished) {
    views.push({
      name,
      node: undefined,
      shouldRun: false,
      shouldContinueRunning: false,
      pods: podsByNode.get(name) ?? [],
    });
  }
  return views;
}
