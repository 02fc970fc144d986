/**
 * The relay's LISTs, page by page (docs/design.md, 7. The relay). A LIST served from the watch
 * cache (`resourceVersion=0`) comes whole whatever its `limit`: at 20,000 nodes × 10 DaemonSets its
 * 200,000 pods are one body of over 500 MiB even of the simulated cluster's small pods, which the
 * relay would hold as bytes, as text, parsed and decoded at once — more than the 1,769 MB of a
 * Lambda function with one full vCPU, and past the longest string V8 makes (512 MiB). So the relay
 * lists as client-go's pager does: pages of {@link LIST_PAGE_SIZE} from one consistent snapshot
 * (no `resourceVersion`, then each page's `continue` token; kube-apiserver reads them from etcd,
 * or from its watch cache's snapshots where it keeps them), and each page goes into the relay's
 * cache and context as it comes (`cluster-view/list-seeding.ts`), so that no page outlives the next.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { GoneError } from '../../kube/errors/kube-api-errors.ts';
import type {
  KubePort,
  ListResult,
  TriggeringResource,
  WatchedObjects,
  WatchedResource,
} from '../../kube/kube-port.ts';
import type { RelayObjectCache } from '../cluster-view/facet-cache.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import { slimNode } from './slim-node.ts';

/** The KubePort methods the relay lists with. */
export type ListingKube = Pick<
  KubePort,
  'listNodes' | 'listPods' | 'listDaemonSets' | 'listControllerRevisions'
>;

/** Objects per page of the relay's LISTs (client-go's pager's default). */
export const LIST_PAGE_SIZE = 500;

/**
 * Times a LIST whose `continue` token expired (410: its snapshot left the server's history while
 * the relay paged) is started over before the failure is thrown.
 */
export const LIST_RESTARTS = 2;

/** A LIST taken into seedings of the cache and the context, not yet committed (`cluster-view/list-seeding.ts`). */
export interface SeedingList<R extends WatchedResource> {
  /** The list's resourceVersion: where its watch starts. */
  readonly resourceVersion: string;
  /** How many objects were listed. */
  readonly count: number;
  /**
   * The listed objects the relay's gate checks read whole (`relistGateChange`, the gate timers):
   * DaemonSets as listed, nodes reduced to what the relay reads (`slimNode`); no pods, no revisions.
   */
  readonly kept: readonly WatchedObjects[R][];
  /**
   * Ends the seedings: the cache and the context, which took each listed object as its page came,
   * forget the objects the list did not show (DaemonSets and revisions: are replaced by the list).
   */
  commit(): void;
}

/** One page of `resource` (pods: those matching `podSelector`), after `cont` (the first without). */
function pageOf(kube: ListingKube, resource: WatchedResource, podSelector: string, cont: string | undefined) {
  const options = { limit: LIST_PAGE_SIZE, ...(cont === undefined ? {} : { continue: cont }) };
  if (resource === 'nodes') return kube.listNodes(options);
  if (resource === 'pods') return kube.listPods({ ...options, labelSelector: podSelector });
  if (resource === 'controllerrevisions') return kube.listControllerRevisions(undefined, options);
  return kube.listDaemonSets(options);
}

/** What of a listed object {@link SeedingList.kept} holds, if anything. */
function keptOf(resource: WatchedResource, object: unknown): unknown {
  if (resource === 'nodes') return slimNode(object as V1Node);
  if (resource === 'daemonsets') return object as DaemonSet;
  return undefined;
}

/**
 * Lists `resource` page by page into a seeding of `cache` and of `context` (the pods: those
 * matching `podSelector`); the caller commits it. A page's failure rejects, except that a LIST whose
 * continue token expired is started over, up to {@link LIST_RESTARTS} times.
 */
export async function listForSeeding<R extends WatchedResource>(
  kube: ListingKube,
  resource: R,
  podSelector: string,
  cache: RelayObjectCache<TriggeringResource> | undefined,
  context: RelayNodeContext | undefined,
): Promise<SeedingList<R>> {
  for (let restarts = 0; ; restarts++) {
    const cacheSeeding = cache?.seeding();
    const contextSeeding = context?.seeding(resource);
    const kept: WatchedObjects[R][] = [];
    let count = 0;
    let resourceVersion = '';
    let cont: string | undefined;
    try {
      do {
        const page = (await pageOf(kube, resource, podSelector, cont)) as ListResult<WatchedObjects[R]>;
        if (cont === undefined) resourceVersion = page.resourceVersion;
        cacheSeeding?.add(page.items as readonly WatchedObjects[TriggeringResource][]);
        contextSeeding?.add(page.items);
        for (const object of page.items) {
          const keep = keptOf(resource, object) as WatchedObjects[R] | undefined;
          if (keep !== undefined) kept.push(keep);
        }
        count += page.items.length;
        cont = page.continue;
      } while (cont);
    } catch (error) {
      if (cont !== undefined && error instanceof GoneError && restarts < LIST_RESTARTS) continue;
      throw error;
    }
    const commit = () => {
      cacheSeeding?.commit();
      contextSeeding?.commit();
    };
    return { resourceVersion, count, kept, commit };
  }
}
