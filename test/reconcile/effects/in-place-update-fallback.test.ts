import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { IN_PLACE_STATE_ANNOTATION } from '../../../lib/core/in-place/in-place-state.ts';
import type { StructuredLogger } from '../../../lib/log/structured-logger.ts';
import {
  type FallbackDeps,
  resizeFallbacks,
} from '../../../lib/reconcile/effects/in-place-update-fallback.ts';
import type { EventRecorder } from '../../../lib/reconcile/memory/event-recorder.ts';
import { aDaemonSet } from '../../support/builders.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const ds = aDaemonSet('agent');

/** A pod of revision `hash` on `node` resized in place, its resize pending for `reason` since `ago` seconds. */
function pod(name: string, reason: string | undefined, ago = 0, hash = 'new'): V1Pod {
  const conditions: V1PodCondition[] = reason
    ? [
        {
          type: 'PodResizePending',
          status: 'True',
          reason,
          message: `Node didn't have enough resource: cpu`,
          lastTransitionTime: new Date(NOW.getTime() - ago * 1000),
        },
      ]
    : [];
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '7',
      labels: { 'controller-revision-hash': hash },
      annotations: { [IN_PLACE_STATE_ANNOTATION]: JSON.stringify({ revision: hash, resize: true }) },
    },
    spec: { nodeName: `node-${name}`, containers: [{ name: 'agent', image: 'agent:1' }] },
    status: { conditions },
  };
}

/** Deps whose events and logs are kept, at NOW, with `deadline` when given. */
function deps(deadline?: number) {
  const warnings: { reason: string; message: string }[] = [];
  const events = {
    warning: (_ds: unknown, reason: string, message: string) => warnings.push({ reason, message }),
  };
  const logger = { info: () => undefined } as unknown as StructuredLogger;
  const value: FallbackDeps = {
    ports: { logger },
    memory: { events: events as unknown as EventRecorder },
    clock: () => NOW,
    ...(deadline === undefined ? {} : { settings: { resizeDeferredSeconds: deadline } }),
  };
  return { value, warnings };
}

describe('resizeFallbacks', () => {
  const pods = [
    pod('a', 'Infeasible'),
    pod('b', 'Deferred', 400),
    pod('c', 'Deferred', 100),
    pod('d', 'Deferred', 250),
    pod('e', undefined),
    pod('f', 'Infeasible', 0, 'old'),
  ];

  it('deletes the Infeasible and long-Deferred pods of the target revision, with preconditions', () => {
    const { value } = deps();
    const fallbacks = resizeFallbacks(value, ds, pods, 'new');
    expect(fallbacks.deletes.map((d) => [d.name, d.node, d.uid, d.resourceVersion])).toEqual([
      ['a', 'node-a', 'uid-a', '7'],
      ['b', 'node-b', 'uid-b', '7'],
    ]);
    // The next look: when the Deferred pod closest to its deadline (d, 250 s of 300) reaches it.
    expect(fallbacks.requeueAfterSeconds).toBe(50);
  });

  it('takes the configured deadline', () => {
    const fallbacks = resizeFallbacks(deps(60).value, ds, pods, 'new');
    expect(fallbacks.deletes.map((d) => d.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(fallbacks).not.toHaveProperty('requeueAfterSeconds');
  });

  it('records the event and the count only for a delete the API server took', () => {
    const { value, warnings } = deps();
    const fallbacks = resizeFallbacks(value, ds, pods, 'new');
    expect(warnings).toEqual([]);
    const [infeasible, deferred] = fallbacks.deletes;
    fallbacks.afterDelete(infeasible as never);
    fallbacks.afterDelete(infeasible as never);
    fallbacks.afterDelete(deferred as never);
    fallbacks.afterDelete({ ...(deferred as object), uid: 'uid-other' } as never);
    expect(warnings.map((w) => w.reason)).toEqual(['ResizeInfeasible', 'ResizeDeferred']);
    expect(warnings[0]?.message).toBe(
      "Resize of pod default/a on node node-a to revision new is infeasible: Node didn't have enough resource: cpu; recreated the pod",
    );
    expect(warnings[1]?.message).toContain('stayed deferred');
    expect(fallbacks.report()).toMatchObject({ resizeFallbacksInfeasible: 1, resizeFallbacksDeferred: 1 });
  });
});
