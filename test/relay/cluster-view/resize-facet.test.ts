/**
 * A daemon pod's PodResizePending condition is a trigger of its own: the pod of a pending in-place
 * resize is already not ready, so without it the kubelet reporting the resize Infeasible or Deferred
 * changed no facet, and nothing brought the DaemonSet step that recreates the pod.
 */
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { changedFacets, facetsOf } from '../../../lib/relay/cluster-view/decision-facets.ts';
import { podEventMarks } from '../../../lib/relay/filters/pod-event-marks.ts';
import { StatusCoalescer } from '../../../lib/relay/filters/status-coalescer.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const pending = (reason: string, status = 'True'): V1PodCondition => ({
  type: 'PodResizePending',
  status,
  reason,
  message: "Node didn't have enough capacity: cpu, requested: 64000, capacity: 4000",
});

/** A running, not ready daemon pod (its in-place update pending) with `conditions` added. */
function pod(...conditions: V1PodCondition[]): V1Pod {
  const p = aPod('agent-a', {
    owner: aDaemonSet('agent'),
    nodeName: 'worker-1',
    phase: 'Running',
    ready: false,
  });
  p.status = { ...p.status, conditions: [...(p.status?.conditions ?? []), ...conditions] };
  return p;
}

const changes = (before: V1Pod, after: V1Pod) =>
  changedFacets(facetsOf('pods', before), facetsOf('pods', after));

describe('the resize facet of a pod', () => {
  it('changes when PodResizePending comes, changes reason, or goes', () => {
    expect(changes(pod(), pod(pending('Infeasible')))).toEqual(['resize']);
    expect(changes(pod(pending('Deferred')), pod(pending('Infeasible')))).toEqual(['resize']);
    expect(changes(pod(pending('Deferred')), pod())).toEqual(['resize']);
  });

  it('ignores a condition that does not hold, and a new probe of the same reason', () => {
    expect(changes(pod(), pod(pending('Deferred', 'False')))).toEqual([]);
    const probed = { ...pending('Deferred'), lastProbeTime: new Date('2026-03-01T12:00:00Z') };
    expect(changes(pod(pending('Deferred')), pod(probed))).toEqual([]);
  });

  it('is never coalesced away', () => {
    const coalescer = new StatusCoalescer();
    const at = new Date('2026-03-01T12:00:00Z');
    // A status-only change of the DaemonSet takes the window; the resize change still goes out.
    expect(podEventMarks(undefined, coalescer, 'MODIFIED', ['ready'], pod(), at).coalesced).toBe(false);
    const marks = podEventMarks(undefined, coalescer, 'MODIFIED', ['resize'], pod(pending('Infeasible')), at);
    expect(marks.coalesced).toBe(false);
  });
});
