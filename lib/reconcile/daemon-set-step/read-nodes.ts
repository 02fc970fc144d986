/**
 * Every node for a DaemonSet step (docs/design.md, 15. The DaemonSet step): the process's latest
 * node LIST when the trigger's node version shows no node changed since; else the node table the
 * process keeps, caught up by a watch as a kept pod table is; else a LIST from the watch cache.
 * Caught up, the table shows what that LIST would have shown (the watch reads until the API server's
 * answer falls quiet), for the parse of the nodes that changed instead of every node: at 5,000
 * nodes a LIST held the pipeline's thread 0.4–0.6 s, and a safe rollout's health steps, which must
 * see every node that turned NotReady, each made one.
 */
import type { V1Node } from '@kubernetes/client-node';
import { TooManyRequestsError } from '../../kube/errors/kube-api-errors.ts';
import type { ListResult } from '../../kube/kube-port.ts';
import { isAtLeast } from '../../kube/resource-version.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { applyNodeEvent, type KeptNodeTable } from '../memory/kept-node-lists.ts';
import { catchUpWatch } from './catch-up-pods.ts';

/**
 * How long a node LIST may be planned on again while no node changed, or a kept node table caught
 * up: at least one full LIST of the nodes every two minutes while the DaemonSet's steps run
 * (docs/design.md, 15. The DaemonSet step).
 */
export const NODE_LIST_REUSE_MS = 120_000;

/** The kept table caught up to what the API server holds; undefined when it could not be (the caller lists). */
async function caughtUp(deps: ReconcileDeps, table: KeptNodeTable): Promise<ListResult<V1Node> | undefined> {
  try {
    const apply = (event: Parameters<typeof applyNodeEvent>[1]) => applyNodeEvent(table, event);
    if (!(await catchUpWatch(deps.ports.kube, 'nodes', {}, table, table.resourceVersion, apply)))
      return undefined;
  } catch (error) {
    // A watch refused with 429 applied nothing: the table stays for the step after the Retry-After.
    if (error instanceof TooManyRequestsError) deps.memory.keptNodes.putTable(table);
    throw error;
  }
  deps.memory.keptNodes.putTable(table);
  return { items: [...table.nodes.values()], resourceVersion: table.resourceVersion };
}

/**
 * Every node as the API server's watch cache has it: the kept table caught up when it is younger
 * than {@link NODE_LIST_REUSE_MS}, else a LIST, kept as the table when it is large enough
 * (`KeptNodeLists.worthKeeping`).
 */
export async function listOrCatchUpNodes(deps: ReconcileDeps): Promise<ListResult<V1Node>> {
  const startedAt = deps.clock().getTime();
  const table = deps.memory.keptNodes.takeTable();
  if (table !== undefined && startedAt - table.listedAt <= NODE_LIST_REUSE_MS) {
    const nodes = await caughtUp(deps, table);
    if (nodes !== undefined) return nodes;
  }
  const list = await deps.ports.kube.listNodes({ allowStale: true });
  if (deps.memory.keptNodes.worthKeeping(list.items.length))
    deps.memory.keptNodes.putTable({
      nodes: new Map(list.items.map((node) => [node.metadata?.name ?? '', node])),
      resourceVersion: list.resourceVersion,
      listedAt: startedAt,
    });
  return list;
}

/**
 * Every node: the process's latest node read when it is at least as new as `nodesVersion` (no node
 * change that can move a placement since, as the relay that sent the trigger knew) and younger than
 * {@link NODE_LIST_REUSE_MS} (`kept`: a recount follows); else the read shared with the steps that
 * arrived before it began, a caught-up table or a LIST ({@link listOrCatchUpNodes}).
 */
export function readNodes(deps: ReconcileDeps, receivedAt: number, nodesVersion: string | undefined) {
  const read = () => listOrCatchUpNodes(deps);
  if (nodesVersion === undefined) return deps.memory.sharedNodeList.get(receivedAt, read);
  const current = (nodes: Readonly<ListResult<V1Node>>) =>
    deps.memory.keptNodes.worthKeeping(nodes.items.length) && isAtLeast(nodes.resourceVersion, nodesVersion);
  return deps.memory.sharedNodeList.getUnlessChanged(receivedAt, current, NODE_LIST_REUSE_MS, read);
}
