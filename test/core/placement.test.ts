import type { V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeShouldRunDaemonPod } from '../../lib/core/placement.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';

const taint = (key: string, effect: string, value?: string): V1Taint => ({
  key,
  effect,
  ...(value ? { value } : {}),
});
const both = { shouldRun: true, shouldContinueRunning: true };
const neither = { shouldRun: false, shouldContinueRunning: false };
const keepOnly = { shouldRun: false, shouldContinueRunning: true };

describe('nodeShouldRunDaemonPod', () => {
  it.each([
    { name: 'plain node, plain DaemonSet', node: aNode('n1'), ds: aDaemonSet('d'), expected: both },
    {
      name: 'template nodeName naming this node',
      node: aNode('n1'),
      ds: aDaemonSet('d', { podSpec: { nodeName: 'n1' } }),
      expected: both,
    },
    {
      name: 'template nodeName naming another node',
      node: aNode('n1'),
      ds: aDaemonSet('d', { podSpec: { nodeName: 'n2' } }),
      expected: neither,
    },
    {
      name: 'nodeSelector not matched',
      node: aNode('n1'),
      ds: aDaemonSet('d', { nodeSelector: { disk: 'ssd' } }),
      expected: neither,
    },
    {
      name: 'nodeSelector matched',
      node: aNode('n1', { labels: { disk: 'ssd' } }),
      ds: aDaemonSet('d', { nodeSelector: { disk: 'ssd' } }),
      expected: both,
    },
    {
      name: 'required affinity not matched even on a NoExecute-tainted node',
      node: aNode('n1', { taints: [taint('k', 'NoExecute')] }),
      ds: aDaemonSet('d', {
        podSpec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] },
                ],
              },
            },
          },
        },
      }),
      expected: neither,
    },
    {
      name: 'untolerated NoSchedule taint: not started, may keep running',
      node: aNode('n1', { taints: [taint('dedicated', 'NoSchedule', 'gpu')] }),
      ds: aDaemonSet('d'),
      expected: keepOnly,
    },
    {
      name: 'untolerated NoExecute taint: neither',
      node: aNode('n1', { taints: [taint('dedicated', 'NoExecute', 'gpu')] }),
      ds: aDaemonSet('d'),
      expected: neither,
    },
    {
      name: 'NoSchedule and NoExecute untolerated: neither',
      node: aNode('n1', { taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute')] }),
      ds: aDaemonSet('d'),
      expected: neither,
    },
    {
      name: 'NoExecute tolerated, NoSchedule not: may keep running',
      node: aNode('n1', { taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute')] }),
      ds: aDaemonSet('d', { tolerations: [{ key: 'b', operator: 'Exists', effect: 'NoExecute' }] }),
      expected: keepOnly,
    },
    {
      name: 'PreferNoSchedule is ignored',
      node: aNode('n1', { taints: [taint('soft', 'PreferNoSchedule')] }),
      ds: aDaemonSet('d'),
      expected: both,
    },
    {
      name: 'spec.unschedulable alone is ignored',
      node: aNode('n1', { unschedulable: true }),
      ds: aDaemonSet('d'),
      expected: both,
    },
    {
      name: 'cordoned node with the unschedulable taint: tolerated automatically',
      node: aNode('n1', {
        unschedulable: true,
        taints: [taint('node.kubernetes.io/unschedulable', 'NoSchedule')],
      }),
      ds: aDaemonSet('d'),
      expected: both,
    },
    {
      name: 'Equal toleration with the right value',
      node: aNode('n1', { taints: [taint('dedicated', 'NoSchedule', 'gpu')] }),
      ds: aDaemonSet('d', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu' }] }),
      expected: both,
    },
    {
      name: 'Equal toleration with the wrong value',
      node: aNode('n1', { taints: [taint('dedicated', 'NoSchedule', 'gpu')] }),
      ds: aDaemonSet('d', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'cpu' }] }),
      expected: keepOnly,
    },
    {
      name: 'empty key with Exists tolerates everything',
      node: aNode('n1', { taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute')] }),
      ds: aDaemonSet('d', { tolerations: [{ operator: 'Exists' }] }),
      expected: both,
    },
    {
      name: 'empty effect tolerates NoExecute too',
      node: aNode('n1', { taints: [taint('b', 'NoExecute')] }),
      ds: aDaemonSet('d', { tolerations: [{ key: 'b', operator: 'Exists' }] }),
      expected: both,
    },
    {
      name: 'not-ready node: automatic NoExecute toleration keeps pods, NoSchedule taint blocks new ones',
      node: aNode('n1', {
        ready: false,
        taints: [
          taint('node.kubernetes.io/not-ready', 'NoSchedule'),
          taint('node.kubernetes.io/not-ready', 'NoExecute'),
        ],
      }),
      ds: aDaemonSet('d'),
      expected: keepOnly,
    },
    {
      name: 'unreachable NoExecute and pressure NoSchedule taints are tolerated automatically',
      node: aNode('n1', {
        taints: [
          taint('node.kubernetes.io/unreachable', 'NoExecute'),
          taint('node.kubernetes.io/disk-pressure', 'NoSchedule'),
          taint('node.kubernetes.io/memory-pressure', 'NoSchedule'),
          taint('node.kubernetes.io/pid-pressure', 'NoSchedule'),
        ],
      }),
      ds: aDaemonSet('d'),
      expected: both,
    },
    {
      name: 'network-unavailable without hostNetwork: not started',
      node: aNode('n1', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      ds: aDaemonSet('d'),
      expected: keepOnly,
    },
    {
      name: 'network-unavailable with hostNetwork: tolerated',
      node: aNode('n1', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      ds: aDaemonSet('d', { podSpec: { hostNetwork: true } }),
      expected: both,
    },
  ])('$name', ({ node, ds, expected }) => {
    expect(nodeShouldRunDaemonPod(node, ds)).toEqual(expected);
  });
});
