/**
 * The readiness gate state of a node hint: the released marker and everynode's DaemonSetsReady
 * condition travel in it, nothing else of the node's annotations or of the kubelet's condition
 * texts, and the node rebuilt from the hint gets the same gate decision as the node itself. Hints
 * without it (an older relay's) still parse, and rebuild a node whose gate state is unknown.
 */
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  DAEMONSETS_READY_CONDITION,
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GatingDaemonSet,
  gatedSince,
  releasedGateKeys,
} from '../../lib/core/node-gates/gate-decision.ts';
import { DEFAULT_GATE_TAINT_KEY } from '../../lib/core/node-gates/gate-declaration.ts';
import { nodeHintsSchema } from '../../lib/messages/node-hints.ts';
import { nodeFromHint, nodeHintOf } from '../../lib/messages/pair-hints.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';

const AGENT = 'example.com/agent-not-ready';
const NOW = Date.parse('2026-01-01T01:00:00Z');
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value));

/** A node gated on `AGENT`, released earlier on the default key, showing our condition False. */
function gatedNode(): V1Node {
  const node = aNode('n1', { taints: [{ key: AGENT, effect: 'NoSchedule' }] });
  node.metadata = {
    ...node.metadata,
    resourceVersion: '42',
    annotations: {
      [GATE_RELEASED_ANNOTATION]: JSON.stringify({ [DEFAULT_GATE_TAINT_KEY]: '2026-01-01T00:00:05.000Z' }),
      'node.alpha.kubernetes.io/ttl': '0',
      'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    },
  };
  node.status = {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastTransitionTime: new Date('2026-01-01T00:00:01Z'),
      },
      {
        type: DAEMONSETS_READY_CONDITION,
        status: 'False',
        reason: 'WaitingForDaemonSets',
        message: `waiting for an available pod of default/agent (${AGENT})`,
        lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
        lastHeartbeatTime: new Date('2026-01-01T00:00:30Z'),
      },
    ],
  };
  return node;
}

/** Gates of both keys: `agent` (Continuous) now available, `boot` (BootstrapOnly, released) not. */
const gating: GatingDaemonSet[] = [
  {
    ds: aDaemonSet('agent'),
    gate: { mode: 'Continuous', taintKey: AGENT, dryRun: false, timeoutSeconds: 600 },
    shouldRun: true,
    available: true,
  },
  {
    ds: aDaemonSet('boot'),
    gate: { mode: 'BootstrapOnly', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    shouldRun: true,
    available: false,
  },
];

describe('the gate state of a node hint', () => {
  it('carries the marker and our condition, and nothing else of the annotations or the kubelet texts', () => {
    const hint = wire(nodeHintOf(gatedNode()));
    expect(hint.resourceVersion).toBe('42');
    expect(hint.gate).toEqual({
      released: JSON.stringify({ [DEFAULT_GATE_TAINT_KEY]: '2026-01-01T00:00:05.000Z' }),
      condition: {
        type: DAEMONSETS_READY_CONDITION,
        status: 'False',
        reason: 'WaitingForDaemonSets',
        message: `waiting for an available pod of default/agent (${AGENT})`,
        lastTransitionTime: '2026-01-01T00:00:00.000Z',
      },
    });
    expect(JSON.stringify(hint)).not.toContain('controller-managed-attach-detach');
    expect(JSON.stringify(hint)).not.toContain('kubelet is posting ready status');
  });

  it('rebuilds a node the gate decision sees as it sees the node itself', () => {
    const node = gatedNode();
    const back = nodeFromHint(wire(nodeHintOf(node)));
    expect(back.metadata?.annotations).toEqual({
      [GATE_RELEASED_ANNOTATION]: node.metadata?.annotations?.[GATE_RELEASED_ANNOTATION],
    });
    expect(back.metadata?.resourceVersion).toBe('42');
    expect(releasedGateKeys(back)).toEqual(releasedGateKeys(node));
    expect(gatedSince(back)).toBe(gatedSince(node));
    const ours = (n: V1Node) => n.status?.conditions?.filter((c) => c.type === DAEMONSETS_READY_CONDITION);
    expect(ours(back)).toEqual([
      {
        type: DAEMONSETS_READY_CONDITION,
        status: 'False',
        reason: 'WaitingForDaemonSets',
        message: `waiting for an available pod of default/agent (${AGENT})`,
        lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
      },
    ]);
    expect(back.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const decided = decideNodeGates(back, gating, NOW);
    expect(decided).toEqual(decideNodeGates(node, gating, NOW));
    // The released default key is left alone, whatever waits; the agent's key is lifted.
    expect(decided.keys.map((k) => [k.key, k.action, k.released])).toEqual([
      [DEFAULT_GATE_TAINT_KEY, 'none', true],
      [AGENT, 'lift', false],
    ]);
    expect(decided.condition.status).toBe('True');
  });

  it('is present and empty on a node that has neither: known to have none', () => {
    const hint = wire(nodeHintOf(aNode('n2')));
    expect(hint.gate).toEqual({});
    const back = nodeFromHint(hint);
    expect(back.metadata?.annotations).toBeUndefined();
    expect(back.status?.conditions?.map((c) => c.type)).toEqual(['Ready']);
  });
});

describe('nodeHintsSchema', () => {
  const hintsOf = (node: V1Node) => ({
    observedAt: new Date(NOW).toISOString(),
    node: wire(nodeHintOf(node)),
    daemonSets: [{ uid: 'ds-1', resourceVersion: '7' }],
    pods: [],
  });

  it('accepts and keeps the gate state', () => {
    const parsed = nodeHintsSchema.parse(wire(hintsOf(gatedNode())));
    expect(parsed.node.gate?.condition?.reason).toBe('WaitingForDaemonSets');
    expect(parsed.node.gate?.released).toContain(DEFAULT_GATE_TAINT_KEY);
  });

  it("accepts an older relay's hints without it: the gate state stays unknown", () => {
    const { gate: _, ...older } = wire(nodeHintOf(gatedNode()));
    const parsed = nodeHintsSchema.parse({ ...hintsOf(gatedNode()), node: older });
    expect(parsed.node.gate).toBeUndefined();
    const back = nodeFromHint(parsed.node);
    expect(back.metadata?.annotations).toBeUndefined();
    // Our condition as placement hints it: type, status and time, not its reason or message.
    expect(back.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION)).toEqual({
      type: DAEMONSETS_READY_CONDITION,
      status: 'False',
      lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
    });
  });

  it('refuses a gate condition without a status', () => {
    const hints = wire(hintsOf(gatedNode()));
    hints.node.gate = { condition: { type: DAEMONSETS_READY_CONDITION } as never };
    expect(nodeHintsSchema.safeParse(hints).success).toBe(false);
  });
});
