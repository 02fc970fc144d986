/**
 * The pair step creates each daemon pod with the requests the DaemonSet's node-sizing rules give
 * its node, read from the node it already reads: the same requests as an unsized create.
 */
import type { V1DaemonSet, V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../../lib/core/daemon-pod.ts';
import { nodeHintOf } from '../../../lib/messages/pair-hints.ts';
import type { PairMessage } from '../../../lib/messages/work-message.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import {
  agentContainer,
  eksNode,
  exampleRules,
  LARGE,
  XL8,
  XL32,
} from '../../core/node-sizing/sizing-fixtures.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { createDaemonSet, pairMessage, podsOf } from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import { coldDeps, reconcileRequests, startStepHarness } from '../../support/reconcile-step-deps.ts';

const rules = exampleRules('agent');

/** A node of `type` to create: as the fixtures make it, without a resourceVersion. */
function sizedNode(name: string, type: string, allocatable: Record<string, string>): V1Node {
  const node = eksNode(name, type, allocatable);
  return { ...node, metadata: { ...node.metadata, resourceVersion: undefined } };
}

describe('the pair step sizes the pods it creates', () => {
  let harness: Harness;
  let ds: V1DaemonSet;

  beforeAll(async () => {
    harness = await startStepHarness();
    ds = createDaemonSet(
      harness,
      aDaemonSet('sized', {
        annotations: { 'everynode.dev/node-sizing': JSON.stringify(rules) },
        podSpec: {
          containers: [
            agentContainer(),
            { name: 'proxy', image: 'proxy:1', resources: { requests: { cpu: '10m' } } },
          ],
        },
      }),
    );
  });
  afterAll(async () => harness?.stop());

  it.each([
    ['s-large', 'm6a.large', LARGE, { cpu: '50m', memory: '186Mi' }, { cpu: '50m', memory: '372Mi' }],
    ['s-8xl', 'm6a.8xlarge', XL8, { cpu: '160m', memory: '2181Mi' }, { cpu: '160m', memory: '4362Mi' }],
    ['s-32xl', 'r6a.32xlarge', XL32, { cpu: '639m', memory: '6Gi' }, { cpu: '639m', memory: '12Gi' }],
  ])(
    'on %s (%s) the agent gets its size, the proxy the template, with the requests of an unsized create',
    async (name, type, allocatable, requests, limits) => {
      harness.sim.nodes.add(sizedNode(name, type, allocatable));
      harness.sim.counters.reset();
      await reconcilePair(coldDeps(harness.deps), pairMessage(ds, name) as PairMessage);
      const [pod, ...more] = podsOf(harness, ds.metadata?.uid ?? '').filter(
        (p) => targetNodeName(p) === name,
      );
      expect(more).toEqual([]);
      const resources = Object.fromEntries((pod?.spec?.containers ?? []).map((c) => [c.name, c.resources]));
      expect(resources).toEqual({ agent: { requests, limits }, proxy: { requests: { cpu: '10m' } } });
      expect(reconcileRequests(harness.sim)).toEqual({
        [`get ${ds.apiVersion === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets'}`]: 1,
        'get nodes': 1,
        'list pods': 1,
        'list apps/controllerrevisions': 1,
        'create pods': 1,
      });
    },
  );

  /** The pair message the DaemonSet step sends for `node`: hints of the node and no pods. */
  const hinted = (node: Readonly<V1Node>, withAllocatable: boolean): PairMessage => {
    const hint = nodeHintOf(node);
    const { allocatable: _left, ...older } = hint;
    const stored = harness.sim.store.get('apps/daemonsets', 'default', 'sized') as V1DaemonSet | undefined;
    return {
      ...(pairMessage(ds, node.metadata?.name ?? '') as PairMessage),
      hints: {
        observedAt: new Date().toISOString(),
        daemonSet: {
          resourceVersion: stored?.metadata?.resourceVersion ?? '',
          generation: stored?.metadata?.generation ?? 1,
        },
        node: withAllocatable ? hint : older,
        pods: [],
      },
    };
  };

  it.each([
    ['from the node hinted by the DaemonSet step, with no read of the node', true, {}],
    ["from the node read, when an older sender's hint has no allocatable", false, { 'get nodes': 1 }],
  ])('sizes a hinted pair %s', async (_what, withAllocatable, nodeReads) => {
    const name = withAllocatable ? 'h-8xl' : 'h-8xl-older';
    harness.sim.nodes.add(sizedNode(name, 'm6a.8xlarge', XL8));
    const node = harness.sim.store.get('nodes', '', name) as unknown as V1Node;
    harness.sim.counters.reset();
    await reconcilePair(coldDeps(harness.deps), hinted(node, withAllocatable));
    const [pod] = podsOf(harness, ds.metadata?.uid ?? '').filter((p) => targetNodeName(p) === name);
    expect(pod?.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '160m', memory: '2181Mi' });
    const requests = reconcileRequests(harness.sim);
    expect(requests['create pods']).toBe(1);
    expect(requests['get nodes'] ? { 'get nodes': requests['get nodes'] } : {}).toEqual(nodeReads);
  });
});
