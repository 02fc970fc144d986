import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GatingDaemonSet,
} from '../../../lib/core/node-gates/gate-decision.ts';
import type { NodeReadinessGate } from '../../../lib/core/node-gates/gate-declaration.ts';
import { DEFAULT_GATE_TAINT_KEY } from '../../../lib/core/node-gates/gate-declaration.ts';
import { orphanGateKeys, withOrphanGatesLifted } from '../../../lib/core/node-gates/orphan-gate-keys.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

const K = DEFAULT_GATE_TAINT_KEY;
const AGENT = 'example.com/agent-not-ready';
const OLD = 'example.com/old-gate';
const NOW = Date.parse('2026-01-01T01:00:00Z');
const NOW_ISO = new Date(NOW).toISOString();

const gateTaint = (key: string): V1Taint => ({ key, effect: 'NoSchedule' });
/** Taints of other controllers, which every write must keep as they are. */
const dedicated: V1Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const oldNoExecute: V1Taint = { key: OLD, effect: 'NoExecute' };
const oldPrefer: V1Taint = { key: OLD, effect: 'PreferNoSchedule' };

function gating(name: string, gate: Partial<NodeReadinessGate> = {}, available = false): GatingDaemonSet {
  return {
    ds: aDaemonSet(name),
    gate: { mode: 'BootstrapOnly', taintKey: K, dryRun: false, ...gate },
    shouldRun: true,
    available,
  };
}

function node(taints: V1Taint[], released?: Record<string, string>): V1Node {
  const n = aNode('n1', { taints });
  if (released && n.metadata)
    n.metadata.annotations = { [GATE_RELEASED_ANNOTATION]: JSON.stringify(released) };
  return n;
}

interface OrphanCase {
  name: string;
  node: V1Node;
  gating: GatingDaemonSet[];
  candidates: string[];
  orphans: string[];
  /** The taints written; undefined: nothing to write. */
  taints: V1Taint[] | undefined;
  /** The keys decided, in order, with their action. */
  keys: [string, string][];
}

describe('orphan gate keys: lifted when no DaemonSet gates them', () => {
  it.each<OrphanCase>([
    {
      name: 'the only gate of the key is gone: lifted, others’ taints kept',
      node: node([dedicated, gateTaint(OLD)]),
      gating: [],
      candidates: [OLD],
      orphans: [OLD],
      taints: [dedicated],
      keys: [[OLD, 'lift']],
    },
    {
      name: 'another DaemonSet still gates the key: decided as usual, kept while it waits',
      node: node([gateTaint(OLD)]),
      gating: [gating('cni', { taintKey: OLD })],
      candidates: [OLD],
      orphans: [],
      taints: undefined,
      keys: [[OLD, 'none']],
    },
    {
      name: 'a key still gated in a dry run is not ours to lift',
      node: node([gateTaint(OLD)]),
      gating: [gating('cni', { taintKey: OLD, dryRun: true }, true)],
      candidates: [OLD],
      orphans: [],
      taints: undefined,
      keys: [[OLD, 'lift']],
    },
    {
      name: 'a key the node does not carry: nothing',
      node: node([dedicated]),
      gating: [],
      candidates: [OLD],
      orphans: [],
      taints: undefined,
      keys: [],
    },
    {
      name: 'only the NoSchedule taint is a gate’s: NoExecute and PreferNoSchedule of the key stay',
      node: node([oldNoExecute, gateTaint(OLD), oldPrefer]),
      gating: [],
      candidates: [OLD],
      orphans: [OLD],
      taints: [oldNoExecute, oldPrefer],
      keys: [[OLD, 'lift']],
    },
    {
      name: 're-keyed gate: the old key lifted, the new one decided, in one write',
      node: node([gateTaint(OLD), gateTaint(K)]),
      gating: [gating('cni', {}, true)],
      candidates: [K, OLD],
      orphans: [OLD],
      taints: [],
      keys: [
        [K, 'lift'],
        [OLD, 'lift'],
      ],
    },
    {
      name: 'on top of a restore: the orphan lifted, the Continuous key restored',
      node: node([gateTaint(OLD)]),
      gating: [gating('cni', { taintKey: AGENT, mode: 'Continuous' })],
      candidates: [OLD, AGENT],
      orphans: [OLD],
      taints: [gateTaint(AGENT)],
      keys: [
        [AGENT, 'restore'],
        [OLD, 'lift'],
      ],
    },
    {
      name: 'a key released earlier (BootstrapOnly) and tainted again: lifted, no DaemonSet gates it',
      node: node([gateTaint(OLD)], { [OLD]: '2026-01-01T00:10:00.000Z' }),
      gating: [],
      candidates: [OLD],
      orphans: [OLD],
      taints: [],
      keys: [[OLD, 'lift']],
    },
    {
      name: 'no candidates: the decision as it was',
      node: node([gateTaint(OLD)]),
      gating: [],
      candidates: [],
      orphans: [],
      taints: undefined,
      keys: [],
    },
  ])('$name', (c) => {
    const decision = decideNodeGates(c.node, c.gating, NOW);
    expect(orphanGateKeys(c.node, decision, c.candidates)).toEqual(c.orphans);
    const lifted = withOrphanGatesLifted(c.node, decision, c.candidates);
    expect(lifted.taints).toEqual(c.taints);
    expect(lifted.keys.map((k) => [k.key, k.action])).toEqual(c.keys);
    for (const k of lifted.keys)
      expect(k.orphaned === true).toBe(c.orphans.includes(k.key) && k.action === 'lift');
    if (c.orphans.length === 0) expect(lifted).toBe(decision);
  });

  it('writes no released marker for an orphan, keeps the decision’s own, and keeps the condition', () => {
    const n = node([gateTaint(OLD), gateTaint(K)]);
    const decision = decideNodeGates(n, [gating('cni', {}, true)], NOW);
    const lifted = withOrphanGatesLifted(n, decision, [OLD]);
    expect(JSON.parse(lifted.releasedMarker ?? '{}')).toEqual({ [K]: NOW_ISO });
    expect(lifted.condition).toEqual(decision.condition);
    expect(lifted.keys.find((k) => k.key === OLD)).toMatchObject({
      orphaned: true,
      dryRun: false,
      tainted: true,
      waitingFor: [],
      released: false,
      timedOut: false,
    });
  });

  it('names each orphan once, sorted, whatever the candidates’ order and repeats', () => {
    const n = node([gateTaint(OLD), gateTaint(AGENT)]);
    const decision = decideNodeGates(n, [], NOW);
    expect(orphanGateKeys(n, decision, [OLD, AGENT, OLD])).toEqual([AGENT, OLD]);
  });
});
