import type { V1Node, V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  conditionChanges,
  conditionWrite,
  secondsUntilWaitingShown,
  WAITING_SHOWN_AFTER_SECONDS,
} from '../../../lib/core/node-gates/gate-condition.ts';
import {
  DAEMONSETS_READY_CONDITION,
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GatingDaemonSet,
  type NodeGateDecision,
} from '../../../lib/core/node-gates/gate-decision.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  type NodeReadinessGate,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { withOrphanGatesLifted } from '../../../lib/core/node-gates/orphan-gate-keys.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

const K = DEFAULT_GATE_TAINT_KEY;
const GONE = 'example.com/gone-not-ready';
/** The builders' node creation time. */
const CREATED = new Date('2026-01-01T00:00:00Z');
const NOW = new Date(CREATED.getTime() + 3_600_000);
const EARLIER = new Date(CREATED.getTime() + 600_000);
/** Within the grace before a bootstrapping node is shown False. */
const JOINING = new Date(CREATED.getTime() + (WAITING_SHOWN_AFTER_SECONDS - 1) * 1000);
const gateTaint = (key: string): V1Taint => ({ key, effect: 'NoSchedule' });

interface GatingOptions {
  gate?: Partial<NodeReadinessGate>;
  available?: boolean;
}

/** A gating DaemonSet `name` that should run on the node (BootstrapOnly on the default key). */
function gating(name: string, options: GatingOptions = {}): GatingDaemonSet {
  return {
    ds: aDaemonSet(name),
    gate: { mode: 'BootstrapOnly', taintKey: K, dryRun: false, ...options.gate },
    shouldRun: true,
    available: options.available ?? false,
  };
}
const ready = (name: string, options: GatingOptions = {}) => gating(name, { ...options, available: true });
const continuous = { mode: 'Continuous' } as const;

const WAITING = { status: 'False', reason: 'WaitingForDaemonSets' } as const;
const READY = { status: 'True', reason: 'DaemonSetsReady' } as const;

/** Node n1 with `taints`, our condition when given, and the released marker of `released` keys. */
function node(taints: V1Taint[] = [], condition?: Partial<V1NodeCondition>, released: string[] = []): V1Node {
  const n = aNode('n1', { taints });
  if (condition !== undefined)
    n.status?.conditions?.push({
      type: DAEMONSETS_READY_CONDITION,
      status: 'False',
      lastTransitionTime: EARLIER,
      ...condition,
    });
  if (released.length > 0 && n.metadata)
    n.metadata.annotations = {
      [GATE_RELEASED_ANNOTATION]: JSON.stringify(Object.fromEntries(released.map((k) => [k, EARLIER]))),
    };
  return n;
}

interface WriteCase {
  name: string;
  node: V1Node;
  gating: GatingDaemonSet[];
  /** The decision as `node-gate-orphans` widens it, when the case names keys no DaemonSet gates. */
  orphans?: string[];
  /** The condition written (status, reason, lastTransitionTime when it moves), or none. */
  written: (Pick<V1NodeCondition, 'status' | 'reason'> & { lastTransitionTime?: Date }) | undefined;
  /** When the step decides (default an hour after the node's creation). */
  now?: Date;
}

function decisionOf(c: WriteCase): NodeGateDecision {
  const decision = decideNodeGates(c.node, c.gating, (c.now ?? NOW).getTime());
  return c.orphans === undefined ? decision : withOrphanGatesLifted(c.node, decision, c.orphans);
}

describe('conditionWrite: a node that shows no condition yet', () => {
  it.each<WriteCase>([
    {
      name: 'bootstrapping, waiting within the grace: nothing (a usual join is released first)',
      node: node([gateTaint(K)]),
      gating: [ready('cni'), gating('logs'), gating('security')],
      now: JOINING,
      written: undefined,
    },
    {
      name: 'bootstrapping, waiting past the grace: False, its transition the node creation',
      node: node([gateTaint(K)]),
      gating: [ready('cni'), gating('logs'), gating('security')],
      written: { ...WAITING, lastTransitionTime: CREATED },
    },
    {
      name: 'bootstrapping, Continuous, waiting within the grace: nothing',
      node: node([gateTaint(K)]),
      gating: [gating('cni', { gate: continuous })],
      now: JOINING,
      written: undefined,
    },
    {
      name: 'bootstrapping, Continuous, waiting past the grace: False',
      node: node([gateTaint(K)]),
      gating: [gating('cni', { gate: continuous })],
      written: { ...WAITING, lastTransitionTime: CREATED },
    },
    {
      name: 'released (lift): True, its transition now',
      node: node([gateTaint(K)]),
      gating: [ready('cni'), ready('logs')],
      written: { ...READY, lastTransitionTime: NOW },
    },
    {
      name: 'a dry run that would lift: True',
      node: node([gateTaint(K)]),
      gating: [ready('cni', { gate: { dryRun: true } })],
      written: { ...READY, lastTransitionTime: NOW },
    },
    {
      name: 'one key released, another still waiting, within the grace: nothing',
      node: node([gateTaint(K), gateTaint('example.com/agent')]),
      gating: [ready('cni'), gating('agent', { gate: { taintKey: 'example.com/agent' } })],
      now: JOINING,
      written: undefined,
    },
    {
      name: 'one key released, another still waiting past the grace: False',
      node: node([gateTaint(K), gateTaint('example.com/agent')]),
      gating: [ready('cni'), gating('agent', { gate: { taintKey: 'example.com/agent' } })],
      written: { ...WAITING, lastTransitionTime: CREATED },
    },
    {
      name: 'a key no DaemonSet gates any more lifted: True',
      node: node([gateTaint(GONE)]),
      gating: [],
      orphans: [GONE],
      written: { ...READY, lastTransitionTime: NOW },
    },
    {
      name: 'timed out while bootstrapping: False, its transition the node creation (the gated time)',
      node: node([gateTaint(K)]),
      gating: [gating('cni', { gate: { timeoutSeconds: 60 } })],
      written: { ...WAITING, lastTransitionTime: CREATED },
    },
    {
      name: 'not yet timed out, within the grace: nothing',
      node: node([gateTaint(K)]),
      gating: [gating('cni', { gate: { timeoutSeconds: 7200 } })],
      now: JOINING,
      written: undefined,
    },
    {
      name: 'Continuous restore: False, its transition now',
      node: node(),
      gating: [gating('cni', { gate: continuous })],
      written: { ...WAITING, lastTransitionTime: NOW },
    },
    {
      name: 'a dry run that would restore: False',
      node: node(),
      gating: [gating('cni', { gate: { ...continuous, dryRun: true } })],
      written: { ...WAITING, lastTransitionTime: NOW },
    },
    {
      name: 'never gated, Continuous, its pod available: nothing',
      node: node(),
      gating: [ready('cni', { gate: continuous })],
      written: undefined,
    },
    {
      name: 'never tainted, BootstrapOnly, its pod not available: nothing',
      node: node(),
      gating: [gating('cni')],
      written: undefined,
    },
    {
      name: 'released earlier (the marker), its pod gone: nothing',
      node: node([], undefined, [K]),
      gating: [gating('cni')],
      written: undefined,
    },
  ])('$name', (c) => check(c));
});

describe('conditionWrite: a node that shows the condition', () => {
  it.each<WriteCase>([
    {
      name: 'False, still waiting, for fewer DaemonSets (only the message changes): nothing',
      node: node([gateTaint(K)], {
        ...WAITING,
        message: 'waiting for an available pod of default/logs, default/security (everynode.dev/not-ready)',
      }),
      gating: [ready('logs'), gating('security')],
      written: undefined,
    },
    {
      name: 'False, then released: True, its transition now',
      node: node([gateTaint(K)], WAITING),
      gating: [ready('cni')],
      written: { ...READY, lastTransitionTime: NOW },
    },
    {
      name: 'True, Continuous restore: False, its transition now',
      node: node([], READY),
      gating: [gating('cni', { gate: continuous })],
      written: { ...WAITING, lastTransitionTime: NOW },
    },
    {
      name: 'True and still true: nothing',
      node: node([], READY),
      gating: [ready('cni', { gate: continuous })],
      written: undefined,
    },
    {
      name: 'True, BootstrapOnly released, pod gone: nothing',
      node: node([], READY, [K]),
      gating: [gating('cni')],
      written: undefined,
    },
    {
      name: 'True, tainted again by a BootstrapOnly key never released: False, kept accurate',
      node: node([gateTaint(K)], READY),
      gating: [gating('cni')],
      written: { ...WAITING, lastTransitionTime: NOW },
    },
    {
      name: 'False with another reason: the reason rewritten, the transition kept',
      node: node([gateTaint(K)], { status: 'False', reason: 'SomethingElse' }),
      gating: [gating('cni')],
      written: WAITING,
    },
    {
      name: 'Unknown: False written, its transition now',
      node: node([gateTaint(K)], { status: 'Unknown', reason: 'WaitingForDaemonSets' }),
      gating: [gating('cni')],
      written: { ...WAITING, lastTransitionTime: NOW },
    },
  ])('$name', (c) => check(c));
});

function check(c: WriteCase): void {
  const now = c.now ?? NOW;
  const decision = decisionOf(c);
  const written = conditionWrite(c.node, decision, now);
  expect(conditionChanges(c.node, decision, now)).toBe(c.written !== undefined);
  if (c.written === undefined) {
    expect(written).toBeUndefined();
    return;
  }
  expect(written).toEqual({
    type: DAEMONSETS_READY_CONDITION,
    status: c.written.status,
    reason: c.written.reason,
    message: decision.condition.message,
    lastHeartbeatTime: now,
    ...(c.written.lastTransitionTime ? { lastTransitionTime: c.written.lastTransitionTime } : {}),
  });
}

describe('secondsUntilWaitingShown', () => {
  const waiting = node([gateTaint(K)]);
  const decide = (n: V1Node, gates: GatingDaemonSet[], at: Date) =>
    secondsUntilWaitingShown(n, decideNodeGates(n, gates, at.getTime()), at);

  it('counts down from the node creation, and is due (0) once the grace has passed', () => {
    expect(decide(waiting, [gating('cni')], CREATED)).toBe(WAITING_SHOWN_AFTER_SECONDS);
    expect(decide(waiting, [gating('cni')], JOINING)).toBe(1);
    expect(decide(waiting, [gating('cni')], NOW)).toBe(0);
  });

  it('is undefined for a node shown the condition, released, or not gated', () => {
    expect(decide(node([gateTaint(K)], WAITING), [gating('cni')], JOINING)).toBeUndefined();
    expect(decide(waiting, [ready('cni')], JOINING)).toBeUndefined();
    expect(decide(node(), [gating('cni')], JOINING)).toBeUndefined();
  });
});
