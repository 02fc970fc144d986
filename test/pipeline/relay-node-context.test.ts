import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import { MAX_NODE_HINTS_BYTES } from '../../lib/messages/node-hints.ts';
import { RelayNodeContext } from '../../lib/pipeline/relay-node-context.ts';
import { aDaemonSet, aNode, aPod } from '../builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet;
agent.metadata = { ...agent.metadata, resourceVersion: '7' };
const at = new Date('2026-11-30T00:00:00Z');

function withVersion<T extends { metadata?: { resourceVersion?: string } }>(
  object: T,
  resourceVersion: string,
): T {
  return { ...object, metadata: { ...object.metadata, resourceVersion } };
}

describe('RelayNodeContext', () => {
  it('hints name the node, every DaemonSet version and the pods targeting the node, bound or pinned', () => {
    const context = new RelayNodeContext();
    const bound = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1' });
    const pinned = daemonPodFor(agent as DaemonSet, 'n2', 'hash1');
    pinned.metadata = { ...pinned.metadata, uid: 'p2', resourceVersion: '3' };
    context.seed('pods', [bound, pinned, aPod('elsewhere', { owner: agent, nodeName: 'n3', uid: 'p3' })]);
    context.seed('daemonsets', [agent as DaemonSet]);
    const n1 = context.hintsFor(aNode('n1', { labels: { disk: 'ssd' } }), at);
    expect(n1).toMatchObject({
      observedAt: at.toISOString(),
      node: { name: 'n1', labels: { disk: 'ssd' } },
      daemonSets: [{ uid: 'ds-agent', resourceVersion: '7' }],
    });
    expect(n1?.pods.map((pod) => pod.uid)).toEqual(['p1']);
    expect(context.hintsFor(aNode('n2'), at)?.pods.map((pod) => pod.uid)).toEqual(['p2']);
  });

  it('follows watch events: a pod bound, modified, deleted; a DaemonSet updated and deleted', () => {
    const context = new RelayNodeContext();
    context.seed('pods', []);
    context.seed('daemonsets', [agent as DaemonSet]);
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1', resourceVersion: '10' });
    context.observe('pods', { type: 'ADDED', object: pod, resourceVersion: '10' });
    const ready = withVersion(pod, '11') as V1Pod;
    context.observe('pods', { type: 'MODIFIED', object: ready, resourceVersion: '11' });
    expect(context.hintsFor(aNode('n1'), at)?.pods.map((p) => p.resourceVersion)).toEqual(['11']);
    context.observe('pods', { type: 'DELETED', object: ready, resourceVersion: '12' });
    expect(context.hintsFor(aNode('n1'), at)?.pods).toEqual([]);

    const updated = withVersion(agent, '8') as DaemonSet;
    context.observe('daemonsets', { type: 'MODIFIED', object: updated, resourceVersion: '8' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets).toEqual([
      { uid: 'ds-agent', resourceVersion: '8' },
    ]);
    context.observe('daemonsets', { type: 'DELETED', object: updated, resourceVersion: '9' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets).toEqual([]);
  });

  it("a pod event's pair hints: the DaemonSet's version, the node, its other pods there", () => {
    const context = new RelayNodeContext();
    const other = aDaemonSet('other', { uid: 'ds-other' }) as V1DaemonSet;
    context.seed('daemonsets', [{ ...agent, metadata: { ...agent.metadata, generation: 3 } } as DaemonSet]);
    context.seed('nodes', [aNode('n1', { labels: { disk: 'ssd' } })]);
    const old = aPod('agent-old', { owner: agent, nodeName: 'n1', uid: 'p-old' });
    const surge = aPod('agent-new', { owner: agent, nodeName: 'n1', uid: 'p-new' });
    context.seed('pods', [old, surge, aPod('other-n1', { owner: other, nodeName: 'n1', uid: 'p-other' })]);
    context.observe('pods', { type: 'DELETED', object: old, resourceVersion: '20' });
    expect(context.pairHintsFor(old, at)).toMatchObject({
      observedAt: at.toISOString(),
      daemonSet: { resourceVersion: '7', generation: 3 },
      node: { name: 'n1', labels: { disk: 'ssd' } },
      pods: [{ uid: 'p-new' }],
    });
    expect(context.pairHintsFor(aPod('elsewhere', { owner: agent, nodeName: 'n9' }), at)?.node).toBeNull();
    expect(context.pairHintsFor(aPod('orphan', { nodeName: 'n1' }), at)).toBeUndefined();
    expect(context.pairHintsFor(aPod('of-other', { owner: other, nodeName: 'n1' }), at)).toBeUndefined();
  });

  it('a relist replaces what was known', () => {
    const context = new RelayNodeContext();
    context.seed('pods', [aPod('old', { owner: agent, nodeName: 'n1', uid: 'p-old' })]);
    context.seed('pods', [aPod('new', { owner: agent, nodeName: 'n1', uid: 'p-new' })]);
    expect(context.hintsFor(aNode('n1'), at)?.pods.map((p) => p.uid)).toEqual(['p-new']);
  });

  it('gives no hints when they would not fit in a trigger', () => {
    const context = new RelayNodeContext();
    const many = Array.from({ length: 200 }, (_, i) =>
      aPod(`pod-${i}`, { owner: agent, nodeName: 'n1', uid: `p-${i}`, labels: { big: 'x'.repeat(60) } }),
    );
    context.seed('pods', many);
    expect(MAX_NODE_HINTS_BYTES).toBeLessThan(64 * 1024);
    expect(context.hintsFor(aNode('n1'), at)).toBeUndefined();
    expect(context.hintsFor(aNode('n2'), at)).toBeDefined();
  });
});
