import { describe, expect, it } from 'vitest';
import { toTable } from '../../../lib/sim/apiserver/table.ts';
import type { KubeObject } from '../../../lib/sim/schema/store-types.ts';

const now = new Date('2026-03-01T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

function object(kind: string, name: string, fields: Record<string, unknown> = {}, metadata = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name, creationTimestamp: ago(30), ...metadata } as never,
    ...fields,
  };
}

const running = { state: { running: { startedAt: ago(20) } }, ready: true, restartCount: 0, name: 'main' };

const podCases: { name: string; pod: KubeObject; cells: unknown[] }[] = [
  {
    name: 'a running ready pod on a node',
    pod: object('Pod', 'p1', {
      spec: { nodeName: 'n1', containers: [{ name: 'main' }] },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }], containerStatuses: [running] },
    }),
    cells: ['p1', '1/1', 'Running', '0', '30s', '10.0.0.5', 'n1', '<none>', '<none>'],
  },
  {
    name: 'a pending unscheduled pod',
    pod: object('Pod', 'p2', { spec: { containers: [{ name: 'main' }] }, status: { phase: 'Pending' } }),
    cells: ['p2', '0/1', 'Pending', '0', '30s', '<none>', '<none>', '<none>', '<none>'],
  },
  {
    name: 'a crash-looping pod with restarts',
    pod: object('Pod', 'p3', {
      spec: { nodeName: 'n1', containers: [{ name: 'main' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'main',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(125) } },
          },
        ],
      },
    }),
    cells: ['p3', '0/1', 'CrashLoopBackOff', '4 (2m5s ago)', '30s', '<none>', 'n1', '<none>', '<none>'],
  },
  {
    name: 'a terminating pod',
    pod: object(
      'Pod',
      'p4',
      {
        spec: { containers: [{ name: 'main' }] },
        status: { phase: 'Running', containerStatuses: [running] },
      },
      { deletionTimestamp: ago(1) },
    ),
    cells: ['p4', '1/1', 'Terminating', '0', '30s', '<none>', '<none>', '<none>', '<none>'],
  },
];

describe('toTable for pods', () => {
  it.each(podCases)('prints $name', ({ pod, cells }) => {
    expect(toTable('pods', [pod], { now }).rows[0]?.cells).toEqual(cells);
  });

  it('marks failed pods with a Completed row condition', () => {
    const pod = object('Pod', 'f', { spec: { containers: [] }, status: { phase: 'Failed' } });
    expect(toTable('pods', [pod], { now }).rows[0]?.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
  });
});

describe('toTable for other kinds', () => {
  it('prints a cordoned NotReady control-plane node', () => {
    const node = object(
      'Node',
      'n1',
      {
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'Ready', status: 'False' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
          nodeInfo: { kubeletVersion: 'v1.33.0', osImage: 'Bottlerocket' },
        },
      },
      { labels: { 'node-role.kubernetes.io/control-plane': '' } },
    );
    expect(toTable('nodes', [node], { now }).rows[0]?.cells).toEqual([
      'n1',
      'NotReady,SchedulingDisabled',
      'control-plane',
      '30s',
      'v1.33.0',
      '10.0.0.1',
      '<none>',
      'Bottlerocket',
      '<unknown>',
      '<unknown>',
    ]);
  });

  it('prints namespaces and events', () => {
    expect(
      toTable('namespaces', [object('Namespace', 'default', { status: { phase: 'Active' } })], { now })
        .rows[0]?.cells,
    ).toEqual(['default', 'Active', '30s']);
    const event = object('Event', 'ev1', {
      type: 'Normal',
      reason: 'SuccessfulCreate',
      message: 'Created pod: p1 ',
      involvedObject: { kind: 'DaemonSet', name: 'fluentd' },
      source: { component: 'everynode' },
      firstTimestamp: ago(300),
      lastTimestamp: ago(70),
      count: 2,
    });
    expect(toTable('events', [event], { now }).rows[0]?.cells).toEqual([
      '70s',
      'Normal',
      'SuccessfulCreate',
      'daemonset/fluentd',
      '',
      'everynode',
      'Created pod: p1',
      '5m',
      2,
      'ev1',
    ]);
  });

  it('prints controller revisions with their controller', () => {
    const revision = object(
      'ControllerRevision',
      'fluentd-abc',
      { revision: 2 },
      {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'u', controller: true },
        ],
      },
    );
    expect(toTable('apps/controllerrevisions', [revision], { now }).rows[0]?.cells).toEqual([
      'fluentd-abc',
      'daemonset.apps/fluentd',
      2,
      '30s',
    ]);
  });

  it('prints everynode DaemonSets from the CRD printer columns', () => {
    const eds = object('DaemonSet', 'agent', {
      spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } }, nodeReadiness: { mode: 'Continuous' } },
      status: {
        desiredNumberScheduled: 2,
        currentNumberScheduled: 2,
        numberReady: 1,
        updatedNumberScheduled: 2,
        rollout: { revision: 'abc', phase: 'Paused', updatedNodes: 1 },
        nodeSizing: 'agent cpu 50m-639m memory 186Mi-6Gi',
      },
    });
    expect(toTable('everynode.dev/daemonsets', [eds], { now }).rows[0]?.cells).toEqual([
      'agent',
      2,
      2,
      1,
      2,
      null,
      '{"disk":"ssd"}',
      '30s',
      'Paused',
      'Continuous',
      'agent cpu 50m-639m memory 186Mi-6Gi',
    ]);
  });
});
