/**
 * A node's change of allocatable or labels reaches the steps of the DaemonSets that size their pods
 * there; heartbeats, other changes and unsized DaemonSets name none.
 */
import { describe, expect, it } from 'vitest';
import type { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { MAX_ROLLOUTS_PER_NODE_EVENT } from '../../../lib/relay/filters/health-signals.ts';
import { sizedDaemonSetsOnNode } from '../../../lib/relay/filters/sized-nodes.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

const rules = JSON.stringify([{ container: 'main', perAllocatable: { cpu: '1%' } }]);
const sized = (name: string) =>
  aDaemonSet(name, {
    annotations: { 'everynode.dev/node-sizing': rules },
    podSpec: { containers: [{ name: 'main', image: 'm:1' }] },
  });
const plain = aDaemonSet('plain');

/** A context whose node n1 runs a pod of each of `daemonSets`. */
function contextOf(daemonSets: ReturnType<typeof aDaemonSet>[]): RelayNodeContext {
  const byUid = new Map(daemonSets.map((ds) => [ds.metadata?.uid ?? '', ds]));
  const pods = daemonSets.map((ds) => ({
    name: `${ds.metadata?.name}-pod`,
    uid: `pod-${ds.metadata?.uid}`,
    resourceVersion: '1',
    ready: true,
    controller: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: ds.metadata?.name ?? '',
      uid: ds.metadata?.uid ?? '',
    },
  }));
  return {
    daemonSet: (uid: string) => byUid.get(uid),
    podsOn: (name: string) => (name === 'n1' ? pods : []),
  } as unknown as RelayNodeContext;
}
const ref = (ds: ReturnType<typeof aDaemonSet>) => ({
  namespace: 'default',
  name: ds.metadata?.name,
  uid: ds.metadata?.uid,
});

describe('sizedDaemonSetsOnNode', () => {
  const agent = sized('agent');
  const context = contextOf([agent, plain]);
  const node = aNode('n1');

  it.each([['allocatable'], ['labels']])(
    'names the sized DaemonSets with a pod there when %s changed',
    (facet) => {
      expect(sizedDaemonSetsOnNode(context, 'MODIFIED', [facet], node)).toEqual([ref(agent)]);
    },
  );

  it.each([
    ['a heartbeat (no facet changed)', 'MODIFIED', []],
    ['a readiness change', 'MODIFIED', ['ready']],
    ['a taint change', 'MODIFIED', ['taints']],
    ['a node added (its pods come from the pair step, sized)', 'ADDED', ['allocatable']],
  ] as const)('names none for %s', (_, type, changes) => {
    expect(sizedDaemonSetsOnNode(context, type, changes, node)).toEqual([]);
  });

  it('names none on a node without pods, or where no DaemonSet sizes its pods', () => {
    expect(sizedDaemonSetsOnNode(context, 'MODIFIED', ['allocatable'], aNode('n2'))).toEqual([]);
    expect(sizedDaemonSetsOnNode(contextOf([plain]), 'MODIFIED', ['allocatable'], node)).toEqual([]);
    expect(sizedDaemonSetsOnNode(undefined, 'MODIFIED', ['allocatable'], node)).toEqual([]);
  });

  it('leaves out the DaemonSets already named and stays within the cap of one node event', () => {
    const many = Array.from({ length: 20 }, (_, i) => sized(`s${i}`));
    const taken = [ref(many[0] as ReturnType<typeof aDaemonSet>)] as never[];
    const named = sizedDaemonSetsOnNode(contextOf(many), 'MODIFIED', ['labels'], node, taken);
    expect(named).toHaveLength(MAX_ROLLOUTS_PER_NODE_EVENT - 1);
    expect(named.map((r) => r.name)).not.toContain('s0');
  });
});
