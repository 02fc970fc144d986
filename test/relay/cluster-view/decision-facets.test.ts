import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { changedFacets, facetsOf } from '../../../lib/relay/cluster-view/decision-facets.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

interface ChangeCase<T> {
  name: string;
  change: (object: T) => void;
  expected: string[];
}

function changesAfter<T>(
  resource: 'nodes' | 'pods' | 'daemonsets',
  build: () => T,
  change: (object: T) => void,
): string[] {
  const before = build();
  const after = build();
  change(after);
  return changedFacets(facetsOf(resource, before as never), facetsOf(resource, after as never));
}

const nodeCases: ChangeCase<V1Node>[] = [
  {
    name: 'a heartbeat (condition heartbeat time) is a no-op',
    change: (n) => {
      for (const c of n.status?.conditions ?? []) c.lastHeartbeatTime = new Date('2026-02-01T00:00:00Z');
    },
    expected: [],
  },
  {
    name: 'images, addresses, capacity and allocatable other than cpu, memory and pods are no-ops',
    change: (n) => {
      n.status = {
        ...n.status,
        images: [{ names: ['busybox'] }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        capacity: { cpu: '2' },
        allocatable: { ...n.status?.allocatable, 'ephemeral-storage': '20Gi', 'hugepages-2Mi': '0' },
      };
    },
    expected: [],
  },
  {
    name: 'an allocatable change of cpu, memory or pods (what node sizing reads)',
    change: (n) => {
      n.status = { ...n.status, allocatable: { ...n.status?.allocatable, memory: '15Gi' } };
    },
    expected: ['allocatable'],
  },
  {
    name: 'a label change',
    change: (n) => Object.assign(n.metadata?.labels ?? {}, { disk: 'ssd' }),
    expected: ['labels'],
  },
  {
    name: 'a taint added',
    change: (n) => {
      n.spec = { ...n.spec, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };
    },
    expected: ['taints'],
  },
  {
    name: 'cordoned',
    change: (n) => Object.assign(n.spec ?? {}, { unschedulable: true }),
    expected: ['unschedulable'],
  },
  {
    name: 'became NotReady',
    change: (n) => {
      n.status = { conditions: [{ type: 'Ready', status: 'False' }] };
    },
    expected: ['ready'],
  },
  {
    name: 'being deleted',
    change: (n) => Object.assign(n.metadata ?? {}, { deletionTimestamp: new Date() }),
    expected: ['deleting'],
  },
];

const podCases: ChangeCase<V1Pod>[] = [
  {
    name: 'a pod IP assigned is a no-op',
    change: (p) => Object.assign(p.status ?? {}, { podIP: '10.1.0.7' }),
    expected: [],
  },
  {
    name: "a container restart is a change: a safe rollout's health rule counts restarts",
    change: (p) => Object.assign(p.status ?? {}, { containerStatuses: [{ name: 'main', restartCount: 3 }] }),
    expected: ['restarts'],
  },
  {
    name: 'phase Pending → Failed is terminal',
    change: (p) => Object.assign(p.status ?? {}, { phase: 'Failed' }),
    expected: ['phase', 'terminal'],
  },
  {
    name: 'phase Pending → Succeeded is terminal',
    change: (p) => Object.assign(p.status ?? {}, { phase: 'Succeeded' }),
    expected: ['phase', 'terminal'],
  },
  {
    name: 'phase Pending → Running',
    change: (p) => Object.assign(p.status ?? {}, { phase: 'Running' }),
    expected: ['phase'],
  },
  {
    name: 'became ready',
    change: (p) => {
      p.status = { phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] };
    },
    expected: ['ready'],
  },
  {
    name: 'bound to a node',
    change: (p) => Object.assign(p.spec ?? {}, { nodeName: 'worker-2' }),
    expected: ['node'],
  },
  {
    name: 'being deleted',
    change: (p) => Object.assign(p.metadata ?? {}, { deletionTimestamp: new Date() }),
    expected: ['deleting'],
  },
  {
    name: 'released by its controller',
    change: (p) => Object.assign(p.metadata ?? {}, { ownerReferences: [] }),
    expected: ['controller'],
  },
  {
    name: 'its revision label moved by an in-place update',
    change: (p) => Object.assign(p.metadata?.labels ?? {}, { 'controller-revision-hash': 'rev2' }),
    expected: ['revision'],
  },
  {
    name: 'another label changed',
    change: (p) => Object.assign(p.metadata?.labels ?? {}, { team: 'b' }),
    expected: [],
  },
];

const daemonSetCases: ChangeCase<DaemonSet>[] = [
  {
    name: 'a status write is a no-op',
    change: (ds) => Object.assign(ds, { status: { numberReady: 3 } }),
    expected: [],
  },
  {
    name: 'a spec change (generation bumped)',
    change: (ds) => Object.assign(ds.metadata ?? {}, { generation: 2 }),
    expected: ['spec'],
  },
  {
    name: 'an extension annotation (apps/v1)',
    change: (ds) => Object.assign(ds.metadata ?? {}, { annotations: { 'everynode.dev/paused': 'true' } }),
    expected: ['annotations'],
  },
  {
    name: 'being deleted',
    change: (ds) => Object.assign(ds.metadata ?? {}, { deletionTimestamp: new Date() }),
    expected: ['deleting'],
  },
];

describe('decision-relevant changes of watched objects', () => {
  it.each(nodeCases)('node: $name', ({ change, expected }) => {
    expect(changesAfter('nodes', () => aNode('worker-1'), change)).toEqual(expected);
  });

  it.each(podCases)('pod: $name', ({ change, expected }) => {
    const owner = aDaemonSet('fluentd');
    const build = () => aPod('fluentd-a', { owner, nodeName: 'worker-1', phase: 'Pending', ready: false });
    expect(changesAfter('pods', build, change)).toEqual(expected);
  });

  it.each(daemonSetCases)('DaemonSet: $name', ({ change, expected }) => {
    expect(changesAfter('daemonsets', () => aDaemonSet('fluentd'), change)).toEqual(expected);
  });

  it('reports a pod that was Running and ready and then Failed as phase, readiness and terminal', () => {
    const owner = aDaemonSet('fluentd');
    const before = aPod('p', { owner, phase: 'Running', ready: true });
    const after = aPod('p', { owner, phase: 'Failed', ready: false });
    expect(changedFacets(facetsOf('pods', before), facetsOf('pods', after))).toEqual([
      'phase',
      'ready',
      'terminal',
    ]);
  });
});
