import type { V1Node, V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../lib/core/action.ts';
import { isGateTaint } from '../../lib/core/node-gates/gate-declaration.ts';
import { nodeViewsFor } from '../../lib/core/node-view.ts';
import { planPair } from '../../lib/core/pair-plan.ts';
import { daemonPodTolerations } from '../../lib/core/tolerations.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

/**
 * Core's gate-tolerant placement and creation judge exactly as the reconcile adapter it replaced:
 * plan on the node with the NoSchedule taints of the gate keys removed (whatever their value), then
 * add the gate tolerations to every create. That adapter is written out here as the oracle.
 */

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const KEYS = ['example.com/agent-not-ready', 'everynode.dev/not-ready'] as const;
const EFFECTS = ['NoSchedule', 'NoExecute', 'PreferNoSchedule'] as const;

function strippedNode(node: V1Node | undefined, gateKeys: readonly string[]): V1Node | undefined {
  const taints = node?.spec?.taints;
  if (node === undefined || taints === undefined) return node;
  return {
    ...node,
    spec: { ...node.spec, taints: taints.filter((t) => !gateKeys.some((k) => isGateTaint(t, k))) },
  };
}

function withGateTolerations(actions: readonly Action[], gateKeys: readonly string[]): Action[] {
  return actions.map((action) => {
    if (action.type !== 'create') return action;
    const spec = action.pod.spec ?? { containers: [] };
    return {
      ...action,
      pod: { ...action.pod, spec: { ...spec, tolerations: daemonPodTolerations(spec, gateKeys) } },
    };
  });
}

const taintArb: fc.Arbitrary<V1Taint> = fc.record(
  {
    key: fc.constantFrom(...KEYS, 'dedicated', 'node.kubernetes.io/not-ready'),
    effect: fc.constantFrom(...EFFECTS),
    value: fc.constantFrom('x', 'booting'),
  },
  { requiredKeys: ['key', 'effect'] },
);

const tolerationArb: fc.Arbitrary<V1Toleration> = fc.record(
  {
    key: fc.constantFrom(...KEYS, 'dedicated'),
    operator: fc.constantFrom('Exists', 'Equal'),
    value: fc.constantFrom('x', 'booting'),
    effect: fc.constantFrom(...EFFECTS),
    tolerationSeconds: fc.constant(5),
  },
  { requiredKeys: ['key', 'operator'] },
);

const stateArb = fc.record({
  taints: fc.array(taintArb, { maxLength: 4 }),
  gone: fc.boolean(),
  gateKeys: fc.subarray([...KEYS]),
  tolerations: fc.array(tolerationArb, { maxLength: 2 }),
  hostNetwork: fc.boolean(),
  surge: fc.boolean(),
  pods: fc.array(
    fc.record({
      phase: fc.constantFrom('Pending', 'Running', 'Failed', 'Succeeded' as const),
      current: fc.boolean(),
      ready: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
});

type Generated = typeof stateArb extends fc.Arbitrary<infer T> ? T : never;

function build(generated: Generated) {
  const ds = aDaemonSet('agent', {
    tolerations: generated.tolerations,
    podSpec: { hostNetwork: generated.hostNetwork },
    ...(generated.surge
      ? { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }
      : {}),
  });
  const node = generated.gone ? undefined : aNode('n1', { taints: generated.taints });
  const pods: V1Pod[] = generated.pods.map((p, i) =>
    aPod(`p${i}`, {
      owner: ds,
      nodeName: 'n1',
      phase: p.phase,
      ready: p.ready && p.phase === 'Running',
      readySince: new Date(NOW.getTime() - 3600_000),
      creationTimestamp: new Date(NOW.getTime() - (3600 - i) * 1000),
      labels: { 'controller-revision-hash': p.current ? HASH : 'oldhash' },
    }),
  );
  return { ds, node, pods, gateKeys: generated.gateKeys };
}

describe('gate-tolerant placement in core (properties)', () => {
  it('planPair with gate keys plans what the old adapter planned', () => {
    fc.assert(
      fc.property(stateArb, (generated) => {
        const { ds, node, pods, gateKeys } = build(generated);
        const state = { ds, node, pods, currentHash: HASH, now: NOW, nodeName: 'n1' };
        const oracle = withGateTolerations(
          planPair({ ...state, node: strippedNode(node, gateKeys) }),
          gateKeys,
        );
        expect(planPair({ ...state, gateKeys })).toEqual(oracle);
      }),
      { numRuns: 1000 },
    );
  });

  it('nodeViewsFor with gate keys places as the old adapter did and keeps the node', () => {
    fc.assert(
      fc.property(stateArb, (generated) => {
        const { ds, node, pods, gateKeys } = build(generated);
        const nodes = node === undefined ? [] : [node];
        const seen = nodes.map((n) => strippedNode(n, gateKeys) as V1Node);
        const oracle = nodeViewsFor(ds, seen, pods).map((view, i) => ({
          ...view,
          node: nodes[i] ?? view.node,
        }));
        expect(nodeViewsFor(ds, nodes, pods, gateKeys)).toEqual(oracle);
      }),
      { numRuns: 1000 },
    );
  });
});
