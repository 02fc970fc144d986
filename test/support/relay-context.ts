/**
 * The relay's view of a harness's cluster, as a relay that has just listed everything would hold
 * it: for tests that hand a step the hints the relay would send.
 */
import type { V1ControllerRevision, V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import { RelayNodeContext } from '../../lib/relay/cluster-view/node-context.ts';
import { daemonSetKey } from './reconcile-cluster.ts';
import type { Harness } from './reconcile-harness.ts';

/** A relay node context seeded from the harness's store as it is now. */
export function relayContextOf(harness: Harness): RelayNodeContext {
  const context = new RelayNodeContext();
  const list = <T>(key: Parameters<typeof harness.sim.store.list>[0]) =>
    harness.sim.store.list(key) as unknown as T[];
  context.seed('nodes', list<V1Node>('nodes'));
  context.seed('pods', list<V1Pod>('pods'));
  context.seed('daemonsets', list<DaemonSet>(daemonSetKey(harness.managedKind)));
  context.seed('controllerrevisions', list<V1ControllerRevision>('apps/controllerrevisions'));
  return context;
}
