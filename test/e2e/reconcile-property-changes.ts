/**
 * The property test's cluster changes, and the work messages the router would send for each.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import fc from 'fast-check';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import {
  daemonSetMessage,
  nodeMessage,
  pairMessage,
  storedDaemonSet,
  updateDaemonSet,
} from '../support/reconcile-cluster.ts';
import type { Harness } from '../support/reconcile-harness.ts';
import { DAEMON_SETS, livePods } from './reconcile-property-model.ts';

/** One change to the cluster. */
export type Change =
  | { type: 'addNode' }
  | { type: 'removeNode'; pick: number }
  | { type: 'label'; pick: number; ssd: boolean }
  | { type: 'taint'; pick: number; effect: 'NoSchedule' | 'NoExecute' | null }
  | { type: 'ready'; pick: number; ready: boolean }
  | { type: 'image' }
  | { type: 'deletePod'; pick: number };

/** Any change. */
export const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.constant<Change>({ type: 'addNode' }),
  fc.record({ type: fc.constant('removeNode' as const), pick: fc.nat() }),
  fc.record({ type: fc.constant('label' as const), pick: fc.nat(), ssd: fc.boolean() }),
  fc.record({
    type: fc.constant('taint' as const),
    pick: fc.nat(),
    effect: fc.constantFrom('NoSchedule' as const, 'NoExecute' as const, null),
  }),
  fc.record({ type: fc.constant('ready' as const), pick: fc.nat(), ready: fc.boolean() }),
  fc.constant<Change>({ type: 'image' }),
  fc.record({ type: fc.constant('deletePod' as const), pick: fc.nat() }),
);

/** The state of one property run. */
export interface Run {
  readonly harness: Harness;
  readonly history: WorkMessage[];
  readonly held: WorkMessage[];
  readonly deletedByTest: Set<string>;
  version: number;
  added: number;
}

const pick = <T>(items: readonly T[], index: number): T | undefined =>
  items[index % Math.max(1, items.length)];

/** Applies one change to the cluster and returns the work messages the router would send for it. */
export function apply(run: Run, change: Change): WorkMessage[] {
  const { harness } = run;
  const names = harness.sim.nodes.names();
  const name = 'pick' in change ? pick(names, change.pick) : undefined;
  const daemonSets = DAEMON_SETS.map((ds) => storedDaemonSet(harness, 'default', ds) as V1DaemonSet);
  switch (change.type) {
    case 'addNode': {
      const added = `extra-${++run.added}`;
      harness.sim.nodes.add(added);
      return [nodeMessage(added)];
    }
    case 'removeNode':
      if (!name || names.length <= 2) return [];
      harness.sim.nodes.remove(name);
      return [nodeMessage(name)];
    case 'label':
      if (!name) return [];
      harness.sim.nodes.label(name, { disk: change.ssd ? 'ssd' : null });
      return [nodeMessage(name)];
    case 'taint':
      if (!name) return [];
      if (change.effect === null) harness.sim.nodes.untaint(name, 'dedicated');
      else harness.sim.nodes.taint(name, { key: 'dedicated', value: 'x', effect: change.effect });
      return [nodeMessage(name)];
    case 'ready':
      if (!name) return [];
      harness.sim.nodes.setReady(name, change.ready);
      return [nodeMessage(name)];
    case 'image': {
      run.version++;
      const ds = updateDaemonSet(harness, 'default', 'all', (stored) => {
        const container = stored.spec?.template.spec?.containers[0];
        if (container) container.image = `busybox:1.${run.version}`;
      });
      return [daemonSetMessage(ds)];
    }
    case 'deletePod': {
      const pods = daemonSets.flatMap((ds) => livePods(harness, ds));
      const victim = pick(pods, change.pick);
      if (!victim) return [];
      run.deletedByTest.add(victim.metadata?.uid ?? '');
      harness.sim.store.delete('pods', 'default', victim.metadata?.name ?? '');
      const owner = daemonSets.find((ds) => ds.metadata?.uid === victim.metadata?.ownerReferences?.[0]?.uid);
      return owner ? [pairMessage(owner, targetNodeName(victim) ?? ''), daemonSetMessage(owner)] : [];
    }
  }
}
