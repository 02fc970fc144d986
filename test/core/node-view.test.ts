import type { V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeViewsFor } from '../../lib/core/node-view.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const KEY = 'example.com/agent-not-ready';
const ds = aDaemonSet('agent');
const both = { shouldRun: true, shouldContinueRunning: true };
const keepOnly = { shouldRun: false, shouldContinueRunning: true };
const neither = { shouldRun: false, shouldContinueRunning: false };

describe('nodeViewsFor with node readiness gate keys', () => {
  it.each<{ name: string; taints: V1Taint[]; withKey: object; without: object }>([
    { name: 'untainted node', taints: [], withKey: both, without: both },
    {
      name: 'gate taint: runs with the key given, not without it',
      taints: [{ key: KEY, effect: 'NoSchedule' }],
      withKey: both,
      without: keepOnly,
    },
    {
      name: 'gate taint with a value: Exists tolerates it',
      taints: [{ key: KEY, value: 'booting', effect: 'NoSchedule' }],
      withKey: both,
      without: keepOnly,
    },
    {
      name: 'gate taint and another controller NoSchedule taint: still kept off',
      taints: [
        { key: KEY, effect: 'NoSchedule' },
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      ],
      withKey: keepOnly,
      without: keepOnly,
    },
    {
      name: 'the gate key tainted NoExecute: neither, key or not',
      taints: [{ key: KEY, effect: 'NoExecute' }],
      withKey: neither,
      without: neither,
    },
  ])('$name', ({ taints, withKey, without }) => {
    const node = aNode('n1', { taints });
    const [gated] = nodeViewsFor(ds, [node], [], [KEY]);
    const [plain] = nodeViewsFor(ds, [node], []);
    expect({ shouldRun: gated?.shouldRun, shouldContinueRunning: gated?.shouldContinueRunning }).toEqual(
      withKey,
    );
    expect({ shouldRun: plain?.shouldRun, shouldContinueRunning: plain?.shouldContinueRunning }).toEqual(
      without,
    );
  });

  it('keeps each node as it is, gate taints included, and vanished nodes after them', () => {
    const node = aNode('n1', { taints: [{ key: KEY, effect: 'NoSchedule' }] });
    const pods = [aPod('p1', { owner: ds, nodeName: 'n1' }), aPod('p2', { owner: ds, nodeName: 'gone' })];
    const views = nodeViewsFor(ds, [node], pods, [KEY]);
    expect(views.map((view) => [view.name, view.shouldRun, view.pods.length])).toEqual([
      ['n1', true, 1],
      ['gone', false, 1],
    ]);
    expect(views[0]?.node).toBe(node);
    expect(views[0]?.node?.spec?.taints).toEqual([{ key: KEY, effect: 'NoSchedule' }]);
  });
});
