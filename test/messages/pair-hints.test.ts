import { describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import { nodeShouldRunDaemonPod } from '../../lib/core/placement.ts';
import { isPodReady } from '../../lib/core/pod-availability.ts';
import {
  nodeFromHint,
  nodeHintOf,
  pairHintsSchema,
  podFromHint,
  podHintOf,
} from '../../lib/messages/pair-hints.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const ds = aDaemonSet('fluentd', { namespace: 'kube-system', uid: 'uid-ds' });

describe('pod hints', () => {
  const cases = [
    {
      name: 'a ready bound pod',
      pod: aPod('p1', { owner: ds, nodeName: 'n1', phase: 'Running', ready: true }),
    },
    { name: 'a pending unbound pod', pod: aPod('p2', { owner: ds, phase: 'Pending' }) },
    {
      name: 'a failed pod with backoff annotation',
      pod: aPod('p3', {
        owner: ds,
        nodeName: 'n1',
        phase: 'Failed',
        annotations: { 'everynode.dev/failure-backoff': '3/2', 'user.example/x': 'big' },
      }),
    },
    {
      name: 'a terminating pod',
      pod: aPod('p4', {
        owner: ds,
        nodeName: 'n1',
        phase: 'Running',
        deletionTimestamp: new Date('2026-01-01T00:01:00Z'),
      }),
    },
  ];

  it.each(cases)('keeps what the pair plan reads of $name', ({ pod }) => {
    const hint = podHintOf(pod);
    const json = JSON.parse(JSON.stringify(hint));
    const back = podFromHint(json, 'kube-system', 'n1');
    expect(back.metadata).toMatchObject({
      name: pod.metadata?.name,
      uid: pod.metadata?.uid,
      resourceVersion: pod.metadata?.resourceVersion,
      labels: pod.metadata?.labels,
      creationTimestamp: pod.metadata?.creationTimestamp,
      ownerReferences: pod.metadata?.ownerReferences,
    });
    expect(back.metadata?.deletionTimestamp).toEqual(pod.metadata?.deletionTimestamp);
    expect(back.status?.phase).toBe(pod.status?.phase);
    expect(isPodReady(back)).toBe(isPodReady(pod));
    expect(targetNodeName(back)).toBe('n1');
  });

  it('keeps only everynode annotations', () => {
    const hint = podHintOf(cases[2]?.pod ?? aPod('x'));
    expect(hint.annotations).toEqual({ 'everynode.dev/failure-backoff': '3/2' });
  });
});

describe('node hints', () => {
  it.each([
    { name: 'a plain node', node: aNode('n1') },
    {
      name: 'a NoExecute tainted node',
      node: aNode('n2', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] }),
    },
    {
      name: 'a labelled NotReady node',
      node: aNode('n3', { labels: { disk: 'ssd' }, ready: false, unschedulable: true }),
    },
  ])('gives the same placement for $name', ({ node }) => {
    const back = nodeFromHint(JSON.parse(JSON.stringify(nodeHintOf(node))));
    expect(nodeShouldRunDaemonPod(back, ds)).toEqual(nodeShouldRunDaemonPod(node, ds));
    expect(back.metadata?.labels).toEqual(node.metadata?.labels);
  });
});

describe('pairHintsSchema', () => {
  it('accepts the hints the converters make', () => {
    const hints = {
      observedAt: new Date('2026-01-01T00:00:00Z').toISOString(),
      daemonSet: { resourceVersion: '5', generation: 1, revisionHash: 'abc' },
      node: nodeHintOf(aNode('n1', { taints: [{ key: 'k', effect: 'NoSchedule' }] })),
      pods: [podHintOf(aPod('p1', { owner: ds, nodeName: 'n1', phase: 'Running' }))],
    };
    expect(pairHintsSchema.safeParse(JSON.parse(JSON.stringify(hints))).success).toBe(true);
  });
});
