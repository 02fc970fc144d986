/** Daemon pods stuck unschedulable, the scheduler's reasons, and the condition they give. */
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeView } from '../../lib/core/node-view.ts';
import {
  PODS_UNSCHEDULABLE_CONDITION,
  pendingText,
  withUnschedulableCondition,
} from '../../lib/core/unschedulable-condition.ts';
import { schedulerReasons, unschedulablePodsOf } from '../../lib/core/unschedulable-pods.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const FIT =
  "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. " +
  'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.';

/** A pending pod for `node` the scheduler left unschedulable with `message`. */
function stuckPod(node: string, message = FIT): V1Pod {
  const pod = aPod(`agent-${node}`, { owner: aDaemonSet('agent'), phase: 'Pending', ready: false });
  pod.status = {
    ...pod.status,
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
  };
  return pod;
}

const view = (name: string, pods: V1Pod[], shouldRun = true): NodeView => ({
  name,
  node: aNode(name),
  shouldRun,
  shouldContinueRunning: shouldRun,
  pods,
});

describe('schedulerReasons', () => {
  it("keeps the reasons about the pod's own node, without counts", () => {
    expect(schedulerReasons(FIT)).toBe('Insufficient memory');
    expect(schedulerReasons('0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.')).toBe(
      'Insufficient cpu, Insufficient memory',
    );
    expect(
      schedulerReasons(
        "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) didn't match Pod's node affinity/selector. preemption: …",
      ),
    ).toBe('node(s) had untolerated taint {node.kubernetes.io/not-ready: }');
  });

  it('gives any other message whole', () => {
    expect(schedulerReasons('running PreBind plugin "VolumeBinding": timed out')).toBe(
      'running PreBind plugin "VolumeBinding": timed out',
    );
  });
});

describe('unschedulablePodsOf', () => {
  it('finds the unschedulable pods of the nodes that should run the daemon', () => {
    const bound = {
      ...stuckPod('node-c'),
      spec: { ...stuckPod('node-c').spec, nodeName: 'node-c', containers: [] },
    };
    const waiting = aPod('agent-node-d', { owner: aDaemonSet('agent'), phase: 'Pending', ready: false });
    const views = [
      view('node-a', [stuckPod('node-a')]),
      view('node-b', [stuckPod('node-b')], false),
      view('node-c', [bound]),
      view('node-d', [waiting]),
    ];
    expect(unschedulablePodsOf(views)).toEqual([
      { node: 'node-a', pod: 'agent-node-a', reason: 'Insufficient memory', message: FIT },
    ]);
  });
});

describe('the PodsUnschedulable condition', () => {
  const stuck = (node: string, reason = 'Insufficient memory') => ({ node, pod: node, reason, message: '' });
  const t0 = new Date('2026-03-01T10:00:00Z');
  const t1 = new Date('2026-03-01T10:05:00Z');

  it('counts the pods and names the nodes by reason, at most three each', () => {
    expect(pendingText([stuck('node-a')])).toBe('1 pending: Insufficient memory on node-a');
    expect(
      pendingText([
        stuck('a'),
        stuck('b'),
        stuck('x', 'Insufficient cpu'),
        stuck('c'),
        stuck('d'),
        stuck('e'),
      ]),
    ).toBe('6 pending: Insufficient memory on a, b, c and 2 more; Insufficient cpu on x');
  });

  it('is set while pods are stuck, keeping its transition time, and removed after', () => {
    const first = withUnschedulableCondition({ numberReady: 1 } as never, undefined, [stuck('node-a')], t0);
    expect(first.conditions).toEqual([
      {
        type: PODS_UNSCHEDULABLE_CONDITION,
        status: 'True',
        reason: 'Unschedulable',
        message: '1 pending: Insufficient memory on node-a',
        lastTransitionTime: t0,
      },
    ]);
    const later = withUnschedulableCondition({} as never, first, [stuck('node-a'), stuck('node-b')], t1);
    expect(later.conditions?.[0]).toMatchObject({
      message: '2 pending: Insufficient memory on node-a, node-b',
      lastTransitionTime: t0,
    });
    const available = { type: 'Available', status: 'True' };
    expect(
      withUnschedulableCondition(
        { conditions: [available, ...(later.conditions ?? [])] } as never,
        later,
        [],
        t1,
      ),
    ).toEqual({ conditions: [available] });
    expect(withUnschedulableCondition({ ...later }, later, [], t1)).toEqual({});
  });
});
