/**
 * Router rule for resync triggers (the schedule, the relay after a relist, `everynode resync`): a
 * `daemonset` message per managed DaemonSet, or for the one DaemonSet of a scoped resync. The
 * DaemonSet step then checks every node of it from one LIST of nodes and one LIST of its pods. A
 * relay's relist that found gates changed (`gateChange`) also sends every node's `node` step
 * (`router-gate-fan-out.ts`).
 */
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
  const gates = gateChange ? await gateFanOut(deps, gateChange, cause) : [];
  return [...(await daemonSetWork(deps, scope, cause)), ...gates];
}

async function daemonSetWork(
  deps: Pick<RouterDeps, 'kube' | 'managedKind'>,
  scope: Readonly<{ namespace: string; name: string }> | undefined,
  cause: MessageCause,
): Promise<RoutedWork[]> {
  const base = { v: 1 as const, cause, managedKind: deps.managedKind, kind: 'daemonset' as const };
  if (scope)
    return [
      { to: 'work', message: { ...base, daemonSet: { namespace: scope.namespace, name: scope.name } } },
    ];
  const daemonSets = [];
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
  return daemonSets.flatMap((ds): RoutedWork[] => {
    const { namespace, name, uid } = ds.metadata ?? {};
    if (!namespace || !name) return [];
    return [{ to: 'work', message: { ...base, daemonSet: { namespace, name, ...(uid ? { uid } : {}) } } }];
  });
}
