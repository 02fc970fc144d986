import { describe, expect, it } from 'vitest';
import { planAdoption } from '../../lib/core/adoption.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const ds = aDaemonSet('agent');
const names = (pods: { metadata?: { name?: string } }[]) => pods.map((p) => p.metadata?.name);

describe('planAdoption', () => {
  it.each([
    {
      name: 'matching orphan is adopted',
      pod: aPod('o', { labels: { app: 'agent' } }),
      expected: { adopt: ['o'], release: [], claimed: ['o'] },
    },
    {
      name: 'non-matching orphan is ignored',
      pod: aPod('o', { labels: { app: 'x' } }),
      expected: { adopt: [], release: [], claimed: [] },
    },
    {
      name: 'terminating orphan is not adopted',
      pod: aPod('o', { labels: { app: 'agent' }, deletionTimestamp: new Date() }),
      expected: { adopt: [], release: [], claimed: [] },
    },
    {
      name: 'orphan in another namespace is not adopted',
      pod: aPod('o', { labels: { app: 'agent' }, namespace: 'kube-system' }),
      expected: { adopt: [], release: [], claimed: [] },
    },
    {
      name: 'owned and matching is claimed',
      pod: aPod('p', { owner: ds }),
      expected: { adopt: [], release: [], claimed: ['p'] },
    },
    {
      name: 'owned but no longer matching is released',
      pod: aPod('p', { owner: ds, labels: { app: 'moved' } }),
      expected: { adopt: [], release: ['p'], claimed: [] },
    },
    {
      name: "another controller's pod is untouched",
      pod: aPod('p', { owner: aDaemonSet('other', { labels: { app: 'agent' } }), labels: { app: 'agent' } }),
      expected: { adopt: [], release: [], claimed: [] },
    },
  ])('$name', ({ pod, expected }) => {
    const plan = planAdoption(ds, [pod]);
    expect({ adopt: names(plan.adopt), release: names(plan.release), claimed: names(plan.claimed) }).toEqual(
      expected,
    );
  });

  it('a DaemonSet being deleted neither adopts nor releases', () => {
    const deleting = { ...ds, metadata: { ...ds.metadata, deletionTimestamp: new Date() } };
    const plan = planAdoption(deleting, [
      aPod('o', { labels: { app: 'agent' } }),
      aPod('p', { owner: ds, labels: { app: 'moved' } }),
    ]);
    expect([plan.adopt, plan.release]).toEqual([[], []]);
  });

  it('an empty selector claims nothing (upstream SelectingAll)', () => {
    const all = aDaemonSet('agent');
    if (all.spec) all.spec.selector = {};
    expect(planAdoption(all, [aPod('o')]).adopt).toEqual([]);
  });
});
