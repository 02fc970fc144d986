import type { V1DaemonSet, V1DaemonSetStatus, V1Pod } from '@kubernetes/client-node';
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
    });
  });

  it('ignores pods of other controllers and terminal pods already being deleted', () => {
    const ds = aDaemonSet('agent');
    const failedDeleted = aPod('x', { owner: ds, nodeName: 'n1', phase: 'Failed', deletionTimestamp: NOW });
    const foreign = daemonPod(aDaemonSet('other'), 'y', 'n2');
    const status = computeDaemonSetStatus(ds, nodes, { n1: [failedDeleted], n2: [foreign] }, HASH, NOW);
    expect(status.currentNumberScheduled).toBe(0);
  });

  describe('conditions with progressDeadlineSeconds', () => {
    const base = (status?: V1DaemonSetStatus) => {
      const ds = aDaemonSet('agent', { annotations: { 'everynode.dev/progress-deadline-seconds': '600' } });
      if (status) ds.status = status;
      return ds;
    };
    const allNew = {
      n1: [daemonPod(base(), 'a', 'n1')],
      n2: [daemonPod(base(), 'b', 'n2')],
      n3: [daemonPod(base(), 'c', 'n3')],
    };
    const oneOld = { ...allNew, n3: [daemonPod(base(), 'c', 'n3', { hash: 'old' })] };
    const counted = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      numberReady: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 2,
      observedGeneration: 1,
    };
    const progressing = (reason: string, status: string, since: Date) => ({
      type: 'Progressing',
      status,
      reason,
      lastTransitionTime: since,
    });

    it.each([
      {
        name: 'complete rollout → Progressing True NewRevisionAvailable',
        ds: base(),
        pods: allNew,
        expected: ['Progressing', 'True', 'NewRevisionAvailable', NOW],
      },
      {
        name: 'first look at an incomplete rollout → DaemonSetUpdated now',
        ds: base(),
        pods: oneOld,
        expected: ['Progressing', 'True', 'DaemonSetUpdated', NOW],
      },
      {
        name: 'no progress within the deadline → condition kept',
        ds: base({ ...counted, conditions: [progressing('DaemonSetUpdated', 'True', secondsAgo(500))] }),
        pods: oneOld,
        expected: ['Progressing', 'True', 'DaemonSetUpdated', secondsAgo(500)],
      },
      {
        name: 'no progress past the deadline → False ProgressDeadlineExceeded',
        ds: base({ ...counted, conditions: [progressing('DaemonSetUpdated', 'True', secondsAgo(601))] }),
        pods: oneOld,
        expected: ['Progressing', 'False', 'ProgressDeadlineExceeded', NOW],
      },
      {
        name: 'progress (one more updated pod) restamps the condition',
        ds: base({
          ...counted,
          updatedNumberScheduled: 1,
          conditions: [progressing('DaemonSetUpdated', 'True', secondsAgo(601))],
        }),
        pods: oneOld,
        expected: ['Progressing', 'True', 'DaemonSetUpdated', NOW],
      },
    ])('$name', ({ ds, pods, expected }) => {
      const status = computeDaemonSetStatus(ds, nodes, pods, HASH, NOW);
      const condition = status.conditions?.find((c) => c.type === 'Progressing');
      expect([condition?.type, condition?.status, condition?.reason, condition?.lastTransitionTime]).toEqual(
        expected,
      );
    });

    it('Available reflects maxUnavailable', () => {
      const ds = base();
      const down = {
        n1: [daemonPod(ds, 'a', 'n1', { ready: false })],
        n2: [daemonPod(ds, 'b', 'n2', { ready: false })],
      };
      const reasons = [allNew, down].map(
        (pods) =>
          computeDaemonSetStatus(ds, nodes, pods, HASH, NOW).conditions?.find((c) => c.type === 'Available')
            ?.reason,
      );
      expect(reasons).toEqual(['MinimumPodsAvailable', 'MinimumPodsUnavailable']);
    });

    it('without a progress deadline existing conditions are kept as they are', () => {
      const ds = aDaemonSet('agent');
      ds.status = { ...counted, conditions: [{ type: 'InvalidSpec', status: 'True' }] };
      expect(computeDaemonSetStatus(ds, nodes, allNew, HASH, NOW).conditions).toEqual([
        { type: 'InvalidSpec', status: 'True' },
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
});
