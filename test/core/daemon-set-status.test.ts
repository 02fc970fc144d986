import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { computeDaemonSetStatus, statusChanged, statusRequeue } from '../../lib/core/daemon-set-status.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);

function daemonPod(
  ds: V1DaemonSet,
  name: string,
  node: string,
  opts: { hash?: string; ready?: boolean; readyFor?: number; age?: number } = {},
): V1Pod {
  return aPod(name, {
    owner: ds,
    nodeName: node,
    phase: 'Running',
    ready: opts.ready ?? true,
    readySince: secondsAgo(opts.readyFor ?? 3600),
    creationTimestamp: secondsAgo(opts.age ?? 3600),
    labels: { 'controller-revision-hash': opts.hash ?? HASH },
  });
}

const nodes = [
  aNode('n1'),
  aNode('n2'),
  aNode('n3'),
  aNode('tainted', { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] }),
];

describe('computeDaemonSetStatus', () => {
  it('counts every apps/v1 field the way upstream updateDaemonSetStatus does', () => {
    const ds = aDaemonSet('agent', { generation: 4, minReadySeconds: 60 });
    ds.status = {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      collisionCount: 2,
    };
    const podsByNode = {
      // Only the oldest pod counts: an old, not ready pod hides a ready new one.
      n1: [
        daemonPod(ds, 'a-new', 'n1', { age: 10 }),
        daemonPod(ds, 'a-old', 'n1', { hash: 'old', ready: false, age: 100 }),
      ],
      n2: [daemonPod(ds, 'b', 'n2', { readyFor: 30 })],
      tainted: [daemonPod(ds, 'c', 'tainted')],
      gone: [daemonPod(ds, 'd', 'gone')],
    };
    expect(computeDaemonSetStatus(ds, nodes, podsByNode, HASH, NOW)).toEqual({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberMisscheduled: 1,
      numberReady: 1,
      numberAvailable: 0,
      updatedNumberScheduled: 1,
      numberUnavailable: 3,
      observedGeneration: 4,
      collisionCount: 2,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'DaemonSetUpdated',
          message: 'DaemonSet "agent" is progressing.',
          lastTransitionTime: NOW,
        },
        {
          type: 'Available',
          status: 'False',
          reason: 'DaemonPodsUnavailable',
          message: '0 of 3 nodes run an available daemon pod.',
          lastTransitionTime: NOW,
        },
      ],
    });
  });

  it('ignores pods of other controllers and terminal pods already being deleted', () => {
    const ds = aDaemonSet('agent');
    const failedDeleted = aPod('x', { owner: ds, nodeName: 'n1', phase: 'Failed', deletionTimestamp: NOW });
    const foreign = daemonPod(aDaemonSet('other'), 'y', 'n2');
    const status = computeDaemonSetStatus(ds, nodes, { n1: [failedDeleted], n2: [foreign] }, HASH, NOW);
    expect(status.currentNumberScheduled).toBe(0);
  });

  describe('conditions (progress-conditions.test.ts has the table)', () => {
    const ds = aDaemonSet('agent');
    const allNew = {
      n1: [daemonPod(ds, 'a', 'n1')],
      n2: [daemonPod(ds, 'b', 'n2')],
      n3: [daemonPod(ds, 'c', 'n3')],
    };
    const conditionsOf = (pods: Record<string, V1Pod[]>, of: V1DaemonSet = ds) =>
      computeDaemonSetStatus(of, nodes, pods, HASH, NOW).conditions?.map((c) => [c.type, c.status, c.reason]);

    it.each([
      {
        name: 'every desired node runs an available current pod',
        pods: allNew,
        expected: [
          ['Progressing', 'True', 'NewRevisionAvailable'],
          ['Available', 'True', 'DaemonPodsAvailable'],
        ],
      },
      {
        name: 'one node still runs the old revision',
        pods: { ...allNew, n3: [daemonPod(ds, 'c', 'n3', { hash: 'old' })] },
        expected: [
          ['Progressing', 'True', 'DaemonSetUpdated'],
          ['Available', 'True', 'DaemonPodsAvailable'],
        ],
      },
      {
        name: 'one node has no pod (maxUnavailable 1 does not make it available)',
        pods: { n1: allNew.n1, n2: allNew.n2 },
        expected: [
          ['Progressing', 'True', 'DaemonSetUpdated'],
          ['Available', 'False', 'DaemonPodsUnavailable'],
        ],
      },
      {
        name: 'a pod ready for less than minReadySeconds is not available',
        pods: { ...allNew, n3: [daemonPod(ds, 'c', 'n3', { readyFor: 5 })] },
        of: aDaemonSet('agent', { minReadySeconds: 30 }),
        expected: [
          ['Progressing', 'True', 'DaemonSetUpdated'],
          ['Available', 'False', 'DaemonPodsUnavailable'],
        ],
      },
    ])('$name', ({ pods, expected, of }) => {
      expect(conditionsOf(pods, of)).toEqual(expected);
    });

    it('keeps condition types it does not own', () => {
      const kept = aDaemonSet('agent');
      kept.status = {
        currentNumberScheduled: 3,
        desiredNumberScheduled: 3,
        numberMisscheduled: 0,
        numberReady: 3,
        conditions: [{ type: 'StatusUpdate', status: 'True' }],
      };
      expect(computeDaemonSetStatus(kept, nodes, allNew, HASH, NOW).conditions?.map((c) => c.type)).toEqual([
        'StatusUpdate',
        'Progressing',
        'Available',
      ]);
    });
  });

  it('statusChanged and statusRequeue say when to write and when to look again', () => {
    const ds = aDaemonSet('agent', { minReadySeconds: 30 });
    const status = computeDaemonSetStatus(
      ds,
      nodes,
      { n1: [daemonPod(ds, 'a', 'n1', { readyFor: 5 })] },
      HASH,
      NOW,
    );
    expect(statusChanged(ds, status)).toBe(true);
    expect(statusChanged({ ...ds, status }, status)).toBe(false);
    expect(statusRequeue(ds, status, NOW)?.afterSeconds).toBe(30);
  });

  it('statusRequeue waits for the progress deadline only when one is set', () => {
    const requeue = (annotations: Record<string, string>) => {
      const ds = aDaemonSet('agent', { annotations });
      const status = computeDaemonSetStatus(
        ds,
        nodes,
        { n1: [daemonPod(ds, 'a', 'n1', { hash: 'old' })] },
        HASH,
        NOW,
      );
      return statusRequeue(ds, status, NOW)?.afterSeconds;
    };
    expect([requeue({ 'everynode.dev/progress-deadline-seconds': '600' }), requeue({})]).toEqual([
      601,
      undefined,
    ]);
  });
});
