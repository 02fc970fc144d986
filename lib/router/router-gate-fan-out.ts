/**
 * Router rule for a change of the node readiness gates in use (docs/design.md, 26. Node readiness
 * gates): a DaemonSet event whose trigger carries `gateChange` (its gate declared, removed,
 * re-keyed, its mode or dry run changed, or the DaemonSet deleted while gating), or a relay's
 * relist that found such changes, sends the `node` step of every node, each naming the keys that
 * may have stopped being gated. Each node then decides its gates at once: a key no DaemonSet gates
 * any more is lifted, a gate made Continuous taints the nodes whose gating pod is not available.
 * Rare (an operator's change), so one message per node is affordable: 5,000 nodes make 5,000
 * messages, sent in batches.
 */
import type { MessageCause } from '../messages/message-cause.ts';
import type { GateChangeDetail } from '../messages/trigger.ts';
import type { RouterDeps } from './router-deps.ts';
import type { RoutedWork } from './router-work.ts';

/** The names of every node, from paged LISTs served from the watch cache. */
async function nodeNames(deps: Pick<RouterDeps, 'kube'>): Promise<string[]> {
  const names: string[] = [];
  let cont: string | undefined;
  do {
    // A node registered since the change brings its own event, and its step sees the new gates.
    const page = await deps.kube.listNodes({
      allowStale: true,
      limit: 500,
      ...(cont ? { continue: cont } : {}),
    });
    for (const node of page.items) if (node.metadata?.name) names.push(node.metadata.name);
    cont = page.continue;
  } while (cont);
  return names;
}

/** A `node` message for every node, caused by `cause`, naming the gate keys of `change`. */
export async function gateFanOut(
  deps: Pick<RouterDeps, 'kube' | 'managedKind'>,
  change: Readonly<GateChangeDetail>,
  cause: MessageCause,
): Promise<RoutedWork[]> {
  const gateKeys = change.keys.length > 0 ? { gateKeys: [...change.keys] } : {};
  return (await nodeNames(deps)).map((name) => ({
    to: 'work',
    message: { v: 1, cause, managedKind: deps.managedKind, kind: 'node', node: { name }, ...gateKeys },
  }));
}
