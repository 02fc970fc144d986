import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { IN_PLACE_STATE_ANNOTATION } from '../../../lib/core/in-place/in-place-state.ts';
import {
  RESIZE_DEFERRED_DEADLINE_SECONDS,
  resizeFallback,
} from '../../../lib/core/in-place/resize-fallback.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

/** A pod labelled revision `hash` with the in-place `state` annotated and the resize `conditions`. */
function pod(options: {
  hash?: string;
  state?: object;
  conditions?: V1PodCondition[];
  deleting?: boolean;
}): V1Pod {
  const { hash = 'new', state = { revision: 'new', resize: true }, conditions = [] } = options;
  return {
    metadata: {
      name: 'agent-x',
      labels: { 'controller-revision-hash': hash },
      annotations: { [IN_PLACE_STATE_ANNOTATION]: JSON.stringify(state) },
      ...(options.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: { containers: [{ name: 'agent', image: 'agent:1', resources: { requests: { cpu: '2' } } }] },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }, ...conditions],
      containerStatuses: [
        {
          name: 'agent',
          image: 'agent:1',
          imageID: '',
          ready: true,
          restartCount: 0,
          resources: { requests: { cpu: '100m' } },
        },
      ],
    },
  };
}

const pending = (reason: string, since?: string): V1PodCondition => ({
  type: 'PodResizePending',
  status: 'True',
  reason,
  message: `Node didn't have enough ${reason === 'Infeasible' ? 'capacity' : 'resource'}: cpu`,
  ...(since ? { lastTransitionTime: since as unknown as Date } : {}),
});

describe('resizeFallback', () => {
  it('recreates an Infeasible resize at once, with the kubelet message', () => {
    expect(resizeFallback(pod({ conditions: [pending('Infeasible', ago(0))] }), NOW)).toEqual({
      type: 'recreate',
      reason: 'Infeasible',
      message: "Node didn't have enough capacity: cpu",
    });
  });

  it('waits out a Deferred resize until the deadline, counted from lastTransitionTime', () => {
    const waiting = resizeFallback(pod({ conditions: [pending('Deferred', ago(60))] }), NOW);
    expect(waiting).toEqual({ type: 'wait', afterSeconds: RESIZE_DEFERRED_DEADLINE_SECONDS - 60 });
    const late = resizeFallback(pod({ conditions: [pending('Deferred', ago(300))] }), NOW);
    expect(late).toMatchObject({ type: 'recreate', reason: 'Deferred' });
    expect(late?.type === 'recreate' && late.message).toContain('deferred for 300s, the limit is 300s');
  });

  it('takes a shorter deadline when given one', () => {
    expect(resizeFallback(pod({ conditions: [pending('Deferred', ago(3))] }), NOW, 2)).toMatchObject({
      type: 'recreate',
      reason: 'Deferred',
    });
    expect(resizeFallback(pod({ conditions: [pending('Deferred', ago(1))] }), NOW, 2)).toEqual({
      type: 'wait',
      afterSeconds: 1,
    });
  });

  it('recreates a Deferred resize whose condition names no time', () => {
    expect(resizeFallback(pod({ conditions: [pending('Deferred')] }), NOW)).toMatchObject({
      type: 'recreate',
      reason: 'Deferred',
    });
  });

  it('leaves alone a resize in progress or done, and a pod with no resize of ours pending', () => {
    const inProgress: V1PodCondition = { type: 'PodResizeInProgress', status: 'True' };
    expect(resizeFallback(pod({ conditions: [inProgress] }), NOW)).toBeUndefined();
    expect(resizeFallback(pod({}), NOW)).toBeUndefined();
    const infeasible = [pending('Infeasible', ago(0))];
    // An images update, a state of another revision than the label, a pod being deleted.
    const images = { revision: 'new', containers: { agent: 'sim://a' } };
    expect(resizeFallback(pod({ state: images, conditions: infeasible }), NOW)).toBeUndefined();
    expect(resizeFallback(pod({ hash: 'newer', conditions: infeasible }), NOW)).toBeUndefined();
    expect(resizeFallback(pod({ deleting: true, conditions: infeasible }), NOW)).toBeUndefined();
    const notHolding = { ...pending('Infeasible', ago(0)), status: 'False' };
    expect(resizeFallback(pod({ conditions: [notHolding] }), NOW)).toBeUndefined();
  });
});
