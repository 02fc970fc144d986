/**
 * A daemon pod turning unschedulable is a trigger: its phase stays Pending and it was never ready,
 * so only its PodScheduled condition says so, and without this facet the DaemonSet's status and
 * FailedPlacement event would wait for some other change. It only moves the status: the coalescer
 * may drop it within its DaemonSet's window, whose refresh reads the pod as it is then.
 */
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { changedFacets, facetsOf } from '../../../lib/relay/cluster-view/decision-facets.ts';
import { StatusCoalescer } from '../../../lib/relay/filters/status-coalescer.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const unschedulable = (reason: string): V1PodCondition => ({
  type: 'PodScheduled',
  status: 'False',
  reason: 'Unschedulable',
  message: `0/3 nodes are available: 1 ${reason}, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: …`,
});

function pod(...conditions: V1PodCondition[]): V1Pod {
  const p = aPod('agent-a', { owner: aDaemonSet('agent'), phase: 'Pending', ready: false });
  p.status = { ...p.status, conditions };
  return p;
}

const changes = (before: V1Pod, after: V1Pod) =>
  changedFacets(facetsOf('pods', before), facetsOf('pods', after));

describe('the unschedulable facet of a pod', () => {
  it('changes when the scheduler finds no room, when its reasons change, and when it binds', () => {
    expect(changes(pod(), pod(unschedulable('Insufficient memory')))).toEqual(['unschedulable']);
    expect(
      changes(pod(unschedulable('Insufficient memory')), pod(unschedulable('Insufficient cpu'))),
    ).toEqual(['unschedulable']);
    const bound = pod({ type: 'PodScheduled', status: 'True' });
    bound.spec = { ...bound.spec, containers: bound.spec?.containers ?? [], nodeName: 'worker-1' };
    expect(changes(pod(unschedulable('Insufficient memory')), bound)).toContain('unschedulable');
  });

  it('ignores a retry that finds the same reasons on a different count of nodes', () => {
    const retried = unschedulable('Insufficient memory');
    retried.message = retried.message?.replace('0/3', '0/4').replace('2 node(s)', '3 node(s)');
    expect(changes(pod(unschedulable('Insufficient memory')), pod(retried))).toEqual([]);
  });

  it('only moves the status: coalesced within the window', () => {
    const coalescer = new StatusCoalescer();
    const at = new Date('2026-03-01T12:00:00Z');
    expect(coalescer.coalesces('MODIFIED', ['ready'], pod(), at)).toBe(false);
    expect(
      coalescer.coalesces('MODIFIED', ['unschedulable'], pod(unschedulable('Insufficient cpu')), at),
    ).toBe(true);
  });
});
