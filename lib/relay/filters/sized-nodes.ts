/**
 * Which DaemonSet steps a node's change of size reaches (docs/design.md, per-node sizing): a daemon
 * pod is current only with the size its node calls for, from the node's allocatable and labels,
 * and only the DaemonSet step updates a pod that is not current (the rolling update, within its
 * budget). So a node whose allocatable (cpu, memory, pods: the facet `allocatable`) or labels
 * changed names the managed DaemonSets that size their pods and run one there; the router sends
 * each one's step, planned on a node LIST at least as new as the change, as it does for the
 * rollouts a node turning NotReady may break (`health-signals.ts`). Heartbeats change neither
 * facet, so they stay no triggers; a node change of anything else names none.
 */
import type { V1Node } from '@kubernetes/client-node';
import { nodeSizingOf } from '../../core/node-sizing/node-sizing.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import { MAX_ROLLOUTS_PER_NODE_EVENT, type RolloutRef } from './health-signals.ts';

/** The node facets whose change can change the size of a pod there. */
const SIZE_FACETS = ['allocatable', 'labels'];

/**
 * The managed DaemonSets with node-sizing rules that have a pod on `node`, as `context` knows them,
 * when the node event (`type`, with the relay's changed facets `changes`) changed its allocatable
 * or labels; empty for any other event. At most {@link MAX_ROLLOUTS_PER_NODE_EVENT}, less `taken`
 * (the DaemonSets already named), and none of those.
 */
export function sizedDaemonSetsOnNode(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  node: Readonly<V1Node>,
  taken: readonly RolloutRef[] = [],
): RolloutRef[] {
  if (context === undefined || type !== 'MODIFIED' || !changes.some((c) => SIZE_FACETS.includes(c)))
    return [];
  const room = MAX_ROLLOUTS_PER_NODE_EVENT - taken.length;
  const found = new Map<string, RolloutRef>();
  for (const pod of context.podsOn(node.metadata?.name ?? '')) {
    if (found.size >= room) break;
    const uid = pod.controller?.uid;
    if (uid === undefined || found.has(uid) || taken.some((ref) => ref.uid === uid)) continue;
    const ds = context.daemonSet(uid);
    if (ds === undefined || nodeSizingOf(ds).length === 0) continue;
    found.set(uid, { namespace: ds.metadata?.namespace ?? 'default', name: ds.metadata?.name ?? '', uid });
  }
  return [...found.values()];
}
