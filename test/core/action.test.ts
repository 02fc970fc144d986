import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { deletesBecauseOfNode } from '../../lib/core/action.ts';
import { planPair } from '../../lib/core/pair-plan.ts';
import { aDaemonSet, aNode, aPod, type PodOptions } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);
const ds = aDaemonSet('agent');
// Same name, hence the same uid: the pods of `ds` are this variant's too.
const ssdOnly = aDaemonSet('agent', { nodeSelector: { disk: 'ssd' } });

/** A current, Running and Ready pod of `ds` on n1. */
function pod(name: string, options: PodOptions = {}): V1Pod {
  return aPod(name, {
    owner: ds,
    nodeName: 'n1',
    phase: 'Running',
    labels: { 'controller-revision-hash': HASH },
    creationTimestamp: secondsAgo(3600),
    readySince: secondsAgo(3600),
    ...options,
  });
}

interface Case {
  readonly name: string;
  readonly ds?: V1DaemonSet;
  /** The node; undefined when it is gone. */
  readonly node: V1Node | undefined;
  readonly pods: V1Pod[];
  readonly byNode: boolean;
}

describe('deletes because of the node', () => {
  const cases: Case[] = [
    { name: 'the node is gone', node: undefined, pods: [pod('p1')], byNode: true },
    {
      name: 'an untolerated NoExecute taint',
      node: aNode('n1', { taints: [{ key: 'x', value: 'y', effect: 'NoExecute' }] }),
      pods: [pod('p1')],
      byNode: true,
    },
    {
      name: 'a nodeSelector the node does not match',
      ds: ssdOnly,
      node: aNode('n1'),
      pods: [pod('p1')],
      byNode: true,
    },
    {
      name: 'a duplicate',
      node: aNode('n1'),
      pods: [pod('old'), pod('young', { creationTimestamp: secondsAgo(1) })],
      byNode: false,
    },
    { name: 'a failed pod', node: aNode('n1'), pods: [pod('p1', { phase: 'Failed' })], byNode: false },
    { name: 'a succeeded pod', node: aNode('n1'), pods: [pod('p1', { phase: 'Succeeded' })], byNode: false },
  ];

  it.each(cases)(
    'a delete because of $name is marked becauseOfNode: $byNode',
    ({ ds: dsOfCase, node, pods, byNode }) => {
      const actions = planPair({
        ds: dsOfCase ?? ds,
        node,
        pods,
        currentHash: HASH,
        now: NOW,
        nodeName: 'n1',
      });
      const deletes = actions.filter((a) => a.type === 'delete');
      expect(deletes.length).toBeGreaterThan(0);
      expect(deletes.map((a) => a.becauseOfNode === true)).toEqual(deletes.map(() => byNode));
      expect(deletesBecauseOfNode(actions)).toBe(byNode);
    },
  );

  it('a plan without deletes has none because of the node', () => {
    const actions = planPair({
      ds,
      node: aNode('n1'),
      pods: [],
      currentHash: HASH,
      now: NOW,
      nodeName: 'n1',
    });
    expect(actions.map((a) => a.type)).toEqual(['create']);
    expect(deletesBecauseOfNode(actions)).toBe(false);
  });
});
