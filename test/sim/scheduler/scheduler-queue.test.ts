import { describe, expect, it } from 'vitest';
import { UnschedulablePods } from '../../../lib/sim/scheduler/scheduler-queue.ts';

function waiting(): UnschedulablePods {
  const pods = new UnschedulablePods();
  pods.add('ns/pinned-a', new Set(['a']));
  pods.add('ns/pinned-ab', new Set(['a', 'b']));
  pods.add('ns/anywhere', undefined);
  return pods;
}

describe('UnschedulablePods', () => {
  it.each([
    {
      name: 'a change of node a wakes its pinned pods and the unpinned one',
      node: 'a',
      woken: ['ns/anywhere', 'ns/pinned-a', 'ns/pinned-ab'],
      left: 0,
    },
    {
      name: 'a change of node b wakes only what may go to b',
      node: 'b',
      woken: ['ns/anywhere', 'ns/pinned-ab'],
      left: 1,
    },
    {
      name: 'a change of an unrelated node wakes only the unpinned pod',
      node: 'z',
      woken: ['ns/anywhere'],
      left: 2,
    },
  ])('$name', ({ node, woken, left }) => {
    const pods = waiting();
    expect(pods.takeFor(node).sort()).toEqual(woken);
    expect(pods.size).toBe(left);
  });

  it('forgets a pod everywhere once deleted or re-added with other pins', () => {
    const pods = waiting();
    pods.delete('ns/pinned-ab');
    pods.add('ns/pinned-a', new Set(['c']));
    expect(pods.has('ns/pinned-ab')).toBe(false);
    expect(pods.takeFor('a')).toEqual(['ns/anywhere']);
    expect(pods.takeFor('c')).toEqual(['ns/pinned-a']);
    expect(pods.size).toBe(0);
  });
});
