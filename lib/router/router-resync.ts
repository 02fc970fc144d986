/**
 * Router rule for resync triggers (the schedule, the relay after a relist, `everynode resync`, the
 * start of `everynode run`): a `daemonset` message per managed DaemonSet, or for the one DaemonSet
 * of a scoped resync. The DaemonSet step then checks every node of it from one LIST of nodes and
 * one LIST of its pods. A resync with `gateChange` also sends every node's `node` step
 * (`router-gate-fan-out.ts`): always when it names keys that may have stopped being gated (a
 * relay's relist that found gates changed), and, when it names none (the start of `everynode run`),
 * only while some managed DaemonSet declares a gate — a node step per node costs three reads, and
 * with no gate declared no node waits on one.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { nodeReadinessOf } from '../core/node-gates/gate-declaration.ts';
import type { MessageCause } from '../messages/message-cause.ts';
import type { GateChangeDetail } from '../messages/trigger.ts';
import type { RouterDeps } from './router-deps.ts';
import { gateFanOut } from './router-gate-fan-out.ts';
import type { RoutedWork } from './router-work.ts';

/** The work of a resync of everything, or of the DaemonSet `scope`; with `gateChange`, of every node too. */
export async function routeResync(
  deps: Pick<RouterDeps, 'kube' | 'managedKind'>,
  scope: Readonly<{ namespace: string; name: string }> | undefined,
  cause: MessageCause,
  gateChange?: Readonly<GateChangeDetail>,
): Promise<RoutedWork[]> {
  const daemonSets = scope ? undefined : await managedDaemonSets(deps);
  const gates =
    gateChange && needsGateFanOut(gateChange, daemonSets) ? await gateFanOut(deps, gateChange, cause) : [];
  return [...daemonSetWork(deps, scope, daemonSets ?? [], cause), ...gates];
}

/**
 * Whether a resync's gate change reaches every node: one naming keys always does; one naming none
 * only when some of the listed DaemonSets (undefined: not listed, a scoped resync) declares a gate.
 */
function needsGateFanOut(change: Readonly<GateChangeDetail>, daemonSets: readonly V1DaemonSet[] | undefined) {
  if (change.keys.length > 0 || daemonSets === undefined) return true;
  return daemonSets.some((ds) => nodeReadinessOf(ds) !== undefined);
}

/** Every managed DaemonSet, from paged LISTs served from the watch cache. */
async function managedDaemonSets(deps: Pick<RouterDeps, 'kube'>): Promise<V1DaemonSet[]> {
  const daemonSets: V1DaemonSet[] = [];
  let cont: string | undefined;
  do {
    // From the watch cache: a DaemonSet created since brings its own event.
    const page = await deps.kube.listDaemonSets({
      allowStale: true,
      limit: 500,
      ...(cont ? { continue: cont } : {}),
    });
    daemonSets.push(...page.items);
    cont = page.continue;
  } while (cont);
  return daemonSets;
}

function daemonSetWork(
  deps: Pick<RouterDeps, 'managedKind'>,
  scope: Readonly<{ namespace: string; name: string }> | undefined,
  daemonSets: readonly V1DaemonSet[],
  cause: MessageCause,
): RoutedWork[] {
  const base = { v: 1 as const, cause, managedKind: deps.managedKind, kind: 'daemonset' as const };
  if (scope)
    return [
      { to: 'work', message: { ...base, daemonSet: { namespace: scope.namespace, name: scope.name } } },
    ];
  return daemonSets.flatMap((ds): RoutedWork[] => {
    const { namespace, name, uid } = ds.metadata ?? {};
    if (!namespace || !name) return [];
    return [{ to: 'work', message: { ...base, daemonSet: { namespace, name, ...(uid ? { uid } : {}) } } }];
  });
}
