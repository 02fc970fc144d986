import type { V1Node, V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  DAEMONSETS_READY_CONDITION,
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GateKeyDecision,
  type GatingDaemonSet,
  gatedSince,
  releasedGateKeys,
} from '../../../lib/core/node-gates/gate-decision.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  type NodeReadinessGate,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

const K = DEFAULT_GATE_TAINT_KEY;
const AGENT = 'example.com/agent-not-ready';
/** The builders' node creation time. */
const CREATED = Date.parse('2026-01-01T00:00:00Z');
const NOW = CREATED + 3_600_000;
const NOW_ISO = new Date(NOW).toISOString();
const EARLIER_ISO = '2025-12-31T12:00:00.000Z';

const gateTaint = (key: string): V1Taint => ({ key, effect: 'NoSchedule' });
/** Taints of other controllers, which every write must keep as they are. */
const notReady: V1Taint = {
  key: 'node.kubernetes.io/not-ready',
  effect: 'NoExecute',
  timeAdded: new Date(CREATED),
};
const dedicated: V1Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const cilium: V1Taint = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoSchedule' };

interface GatingOptions {
  gate?: Partial<NodeReadinessGate>;
  shouldRun?: boolean;
  available?: boolean;
  namespace?: string;
}

/** A gating DaemonSet `name` (BootstrapOnly on the default key, should run, not available unless said). */
function gating(name: string, options: GatingOptions = {}): GatingDaemonSet {
  return {
    ds: aDaemonSet(name, { namespace: options.namespace ?? 'default' }),
    gate: { mode: 'BootstrapOnly', taintKey: K, dryRun: false, ...options.gate },
    shouldRun: options.shouldRun ?? true,
    available: options.available ?? false,
  };
}

const ready = (name: string, options: GatingOptions = {}) => gating(name, { ...options, available: true });
const continuous = { mode: 'Continuous' } as const;

interface NodeState {
  taints?: V1Taint[];
  /** The released marker, as a map or as raw annotation text. */
  released?: Record<string, string> | string;
  /** The DaemonSetsReady condition (status False unless said); times as Dates or RFC 3339 text. */
  condition?: Partial<Omit<V1NodeCondition, 'lastTransitionTime'>> & { lastTransitionTime?: Date | string };
  creationTimestamp?: Date;
}

/** Node n1 in `state`. */
function node(state: NodeState = {}): V1Node {
  const n = aNode('n1', {
    ...(state.taints ? { taints: state.taints } : {}),
    ...(state.creationTimestamp ? { creationTimestamp: state.creationTimestamp } : {}),
  });
  if (state.released !== undefined && n.metadata) {
    const text = typeof state.released === 'string' ? state.released : JSON.stringify(state.released);
    n.metadata.annotations = { [GATE_RELEASED_ANNOTATION]: text };
  }
  if (state.condition && n.status?.conditions) {
    // Raw JSON carries the time as text, the client's deserializer as a Date: both are read.
    n.status.conditions.push({
      type: DAEMONSETS_READY_CONDITION,
      status: 'False',
      ...state.condition,
    } as V1NodeCondition);
  }
  return n;
}

const READY_CONDITION = {
  type: DAEMONSETS_READY_CONDITION,
  status: 'True',
  reason: 'DaemonSetsReady',
  message: 'every gating DaemonSet that should run here has an available pod',
};
const waitingCondition = (message: string) => ({
  type: DAEMONSETS_READY_CONDITION,
  status: 'False',
  reason: 'WaitingForDaemonSets',
  message: `waiting for an available pod of ${message}`,
});

interface DecisionCase {
  name: string;
  node: V1Node;
  gating: GatingDaemonSet[];
  /** The per-key decisions, in key order (only the fields named are compared). */
  keys: Partial<GateKeyDecision>[];
  taints: V1Taint[] | undefined;
  releasedMarker: Record<string, string> | undefined;
  condition: ReturnType<typeof waitingCondition> | typeof READY_CONDITION;
}

function check(c: DecisionCase, now = NOW): void {
  const decision = decideNodeGates(c.node, c.gating, now);
  expect(decision.keys).toHaveLength(c.keys.length);
  decision.keys.forEach((k, i) => {
    expect(k).toMatchObject(c.keys[i] ?? {});
  });
  expect(decision.taints).toEqual(c.taints);
  expect(decision.releasedMarker === undefined ? undefined : JSON.parse(decision.releasedMarker)).toEqual(
    c.releasedMarker,
  );
  expect(decision.condition).toEqual(c.condition);
}

describe('decideNodeGates: lifting and waiting', () => {
  it.each<DecisionCase>([
    {
      name: 'every gating pod available: lift, marked released at now (BootstrapOnly)',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni'), ready('logs')],
      keys: [
        { key: K, action: 'lift', mode: 'BootstrapOnly', tainted: true, waitingFor: [], released: false },
      ],
      taints: [],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'one gating pod missing: wait, write nothing',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni'), gating('logs')],
      keys: [{ key: K, action: 'none', tainted: true, waitingFor: ['default/logs'], timedOut: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: waitingCondition('default/logs (everynode.dev/not-ready)'),
    },
    {
      name: 'a node no gating DaemonSet wants: lifted at once',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('gpu-agent', { shouldRun: false }), gating('arm-agent', { shouldRun: false })],
      keys: [{ key: K, action: 'lift', waitingFor: [] }],
      taints: [],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'a DaemonSet that should not run here is not waited for, even with no pod',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni'), gating('gpu-agent', { shouldRun: false })],
      keys: [{ key: K, action: 'lift', waitingFor: [] }],
      taints: [],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'no gating DaemonSet at all: nothing to decide, the condition True',
      node: node({ taints: [gateTaint(K)] }),
      gating: [],
      keys: [],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'already open and satisfied: nothing',
      node: node(),
      gating: [ready('cni', { gate: continuous })],
      keys: [{ key: K, action: 'none', tainted: false, waitingFor: [] }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'two keys: the satisfied one is lifted, the other waits',
      node: node({ taints: [gateTaint(AGENT), gateTaint(K)] }),
      gating: [ready('cni'), gating('security', { gate: { taintKey: AGENT } })],
      keys: [
        { key: K, action: 'lift' },
        { key: AGENT, action: 'none', waitingFor: ['default/security'] },
      ],
      taints: [gateTaint(AGENT)],
      releasedMarker: { [K]: NOW_ISO },
      condition: waitingCondition(`default/security (${AGENT})`),
    },
  ])('$name', (c) => check(c));
});

describe('decideNodeGates: two DaemonSets gating the same key', () => {
  it.each<DecisionCase>([
    {
      name: 'both available: lifted; Continuous because one is, so no release marker',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni'), ready('security', { gate: continuous })],
      keys: [{ key: K, action: 'lift', mode: 'Continuous' }],
      taints: [],
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'only the BootstrapOnly one available: the key waits for the other',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni'), gating('security', { gate: continuous })],
      keys: [{ key: K, action: 'none', mode: 'Continuous', waitingFor: ['default/security'] }],
      taints: undefined,
      releasedMarker: undefined,
      condition: waitingCondition('default/security (everynode.dev/not-ready)'),
    },
    {
      name: 'open key, the BootstrapOnly one unavailable: restored, since the key is Continuous',
      node: node(),
      gating: [gating('cni'), ready('security', { gate: continuous })],
      keys: [{ key: K, action: 'restore', mode: 'Continuous', waitingFor: ['default/cni'] }],
      taints: [gateTaint(K)],
      releasedMarker: undefined,
      condition: waitingCondition('default/cni (everynode.dev/not-ready)'),
    },
    {
      name: 'both missing: both named, sorted by namespace/name',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('zeta', { namespace: 'a-system' }), gating('alpha', { namespace: 'kube-system' })],
      keys: [{ key: K, action: 'none', waitingFor: ['a-system/zeta', 'kube-system/alpha'] }],
      taints: undefined,
      releasedMarker: undefined,
      condition: waitingCondition('a-system/zeta, kube-system/alpha (everynode.dev/not-ready)'),
    },
  ])('$name', (c) => check(c));
});

describe('decideNodeGates: BootstrapOnly and Continuous', () => {
  it.each<DecisionCase>([
    {
      name: 'BootstrapOnly release keeps the keys released before',
      node: node({ taints: [gateTaint(K)], released: { [AGENT]: EARLIER_ISO } }),
      gating: [ready('cni')],
      keys: [{ key: K, action: 'lift' }],
      taints: [],
      releasedMarker: { [AGENT]: EARLIER_ISO, [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'an unreadable marker is replaced by the new release',
      node: node({ taints: [gateTaint(K)], released: 'not json' }),
      gating: [ready('cni')],
      keys: [{ key: K, action: 'lift' }],
      taints: [],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'BootstrapOnly, released, pod gone: never restored, the condition stays True',
      node: node({ released: { [K]: EARLIER_ISO } }),
      gating: [gating('cni')],
      keys: [{ key: K, action: 'none', released: true, tainted: false, waitingFor: ['default/cni'] }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'BootstrapOnly on a node never tainted: left alone',
      node: node(),
      gating: [gating('cni')],
      keys: [{ key: K, action: 'none', released: false, tainted: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'BootstrapOnly, released, and the taint back: unmanaged, not lifted again',
      node: node({ taints: [gateTaint(K)], released: { [K]: EARLIER_ISO } }),
      gating: [ready('cni')],
      keys: [{ key: K, action: 'none', released: true, tainted: true, timedOut: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'BootstrapOnly, released, the taint back and the pod gone: not waited for either',
      node: node({ taints: [gateTaint(K)], released: { [K]: EARLIER_ISO } }),
      gating: [gating('cni', { gate: { timeoutSeconds: 1 } })],
      keys: [{ key: K, action: 'none', released: true, timedOut: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'Continuous, the gating pod unavailable on an open node: restored after the others',
      node: node({ taints: [notReady, dedicated] }),
      gating: [gating('cni', { gate: continuous })],
      keys: [{ key: K, action: 'restore', mode: 'Continuous', tainted: false, waitingFor: ['default/cni'] }],
      taints: [notReady, dedicated, gateTaint(K)],
      releasedMarker: undefined,
      condition: waitingCondition('default/cni (everynode.dev/not-ready)'),
    },
    {
      name: 'Continuous, available again: lifted, no marker written',
      node: node({ taints: [gateTaint(K)], condition: { status: 'False' } }),
      gating: [ready('cni', { gate: continuous })],
      keys: [{ key: K, action: 'lift', mode: 'Continuous' }],
      taints: [],
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'Continuous ignores a marker left by an earlier BootstrapOnly gate of the key',
      node: node({ released: { [K]: EARLIER_ISO } }),
      gating: [gating('cni', { gate: continuous })],
      keys: [{ key: K, action: 'restore', released: false }],
      taints: [gateTaint(K)],
      releasedMarker: undefined,
      condition: waitingCondition('default/cni (everynode.dev/not-ready)'),
    },
    {
      name: 'Continuous, a pod that should not run here: no restore',
      node: node(),
      gating: [gating('cni', { gate: continuous, shouldRun: false })],
      keys: [{ key: K, action: 'none', waitingFor: [] }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
  ])('$name', (c) => check(c));
});

describe('decideNodeGates: dry run', () => {
  it.each<DecisionCase>([
    {
      name: 'a lift is reported, no taint or marker written',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni', { gate: { dryRun: true } })],
      keys: [{ key: K, action: 'lift', dryRun: true }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'a restore is reported, no taint written; the condition says dry run',
      node: node(),
      gating: [gating('cni', { gate: { mode: 'Continuous', dryRun: true } })],
      keys: [{ key: K, action: 'restore', dryRun: true }],
      taints: undefined,
      releasedMarker: undefined,
      condition: waitingCondition('default/cni (everynode.dev/not-ready, dry run)'),
    },
    {
      name: 'a key is a dry run only if every DaemonSet gating it is',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni', { gate: { dryRun: true } }), ready('logs')],
      keys: [{ key: K, action: 'lift', dryRun: false }],
      taints: [],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'a dry-run key beside a real one: only the real one is written',
      node: node({ taints: [gateTaint(AGENT), gateTaint(K)] }),
      gating: [ready('cni'), ready('security', { gate: { taintKey: AGENT, dryRun: true } })],
      keys: [
        { key: K, action: 'lift', dryRun: false },
        { key: AGENT, action: 'lift', dryRun: true },
      ],
      taints: [gateTaint(AGENT)],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
  ])('$name', (c) => check(c));
});

describe("decideNodeGates keeps other controllers' taints", () => {
  it.each<DecisionCase>([
    {
      name: 'lift: only our NoSchedule taint goes; the others stay in order, values and times intact',
      node: node({ taints: [notReady, gateTaint(K), dedicated, { key: K, effect: 'NoExecute' }, cilium] }),
      gating: [ready('cni')],
      keys: [{ key: K, action: 'lift' }],
      taints: [notReady, dedicated, { key: K, effect: 'NoExecute' }, cilium],
      releasedMarker: { [K]: NOW_ISO },
      condition: READY_CONDITION,
    },
    {
      name: 'a NoExecute taint with the gate key is not ours: not tainted, nothing lifted',
      node: node({ taints: [{ key: K, effect: 'NoExecute' }] }),
      gating: [ready('cni')],
      keys: [{ key: K, action: 'none', tainted: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'a PreferNoSchedule taint with the gate key is not ours either',
      node: node({ taints: [{ key: K, effect: 'PreferNoSchedule' }] }),
      gating: [gating('cni')],
      keys: [{ key: K, action: 'none', tainted: false }],
      taints: undefined,
      releasedMarker: undefined,
      condition: READY_CONDITION,
    },
    {
      name: 'Continuous restore beside a NoExecute taint of the same key: ours is added, theirs kept',
      node: node({ taints: [{ key: K, effect: 'NoExecute' }] }),
      gating: [gating('cni', { gate: continuous })],
      keys: [{ key: K, action: 'restore' }],
      taints: [{ key: K, effect: 'NoExecute' }, gateTaint(K)],
      releasedMarker: undefined,
      condition: waitingCondition('default/cni (everynode.dev/not-ready)'),
    },
  ])('$name', (c) => check(c));

  it('does not modify the node it is given', () => {
    const n = node({ taints: [notReady, gateTaint(K)], released: { [AGENT]: EARLIER_ISO } });
    const before = structuredClone(n);
    const decision = decideNodeGates(n, [ready('cni')], NOW);
    decision.taints?.push(gateTaint('x'));
    expect(n).toEqual(before);
  });
});

describe('decideNodeGates: timeout', () => {
  const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
  it.each([
    {
      name: 'no condition: gated since creation, past the timeout',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('cni', { gate: { timeoutSeconds: 3600 } })],
      timedOut: true,
    },
    {
      name: 'no condition: gated since creation, one second short of the timeout',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('cni', { gate: { timeoutSeconds: 3601 } })],
      timedOut: false,
    },
    {
      name: 'condition False: gated since its last transition, past the timeout',
      node: node({
        taints: [gateTaint(K)],
        condition: { status: 'False', lastTransitionTime: minutesAgo(2) },
      }),
      gating: [gating('cni', { gate: { timeoutSeconds: 120 } })],
      timedOut: true,
    },
    {
      name: 'condition False: since its last transition, not since creation',
      node: node({
        taints: [gateTaint(K)],
        condition: { status: 'False', lastTransitionTime: minutesAgo(2) },
      }),
      gating: [gating('cni', { gate: { timeoutSeconds: 121 } })],
      timedOut: false,
    },
    {
      name: 'condition False, its time a Date as the client deserializes it',
      node: node({
        taints: [gateTaint(K)],
        condition: { status: 'False', lastTransitionTime: new Date(NOW - 120_000) },
      }),
      gating: [gating('cni', { gate: { timeoutSeconds: 120 } })],
      timedOut: true,
    },
    {
      name: 'condition True (the taint just restored): not gated yet',
      node: node({
        taints: [gateTaint(K)],
        condition: { status: 'True', lastTransitionTime: minutesAgo(600) },
      }),
      gating: [gating('cni', { gate: { mode: 'Continuous', timeoutSeconds: 1 } })],
      timedOut: false,
    },
    {
      name: 'the shortest timeout of the DaemonSets waited for',
      node: node({ taints: [gateTaint(K)], condition: { lastTransitionTime: minutesAgo(5) } }),
      gating: [
        gating('cni', { gate: { timeoutSeconds: 7200 } }),
        gating('logs', { gate: { timeoutSeconds: 300 } }),
        gating('metrics'),
      ],
      timedOut: true,
    },
    {
      name: 'the timeout of an available DaemonSet does not count',
      node: node({ taints: [gateTaint(K)] }),
      gating: [ready('cni', { gate: { timeoutSeconds: 60 } }), gating('logs')],
      timedOut: false,
    },
    {
      name: 'the timeout of a DaemonSet that should not run here does not count',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('gpu', { shouldRun: false, gate: { timeoutSeconds: 60 } }), gating('logs')],
      timedOut: false,
    },
    {
      name: 'no timeout declared: never timed out',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('cni')],
      timedOut: false,
    },
    {
      name: 'a node not tainted is not gated, whatever waits',
      node: node(),
      gating: [gating('cni', { gate: { timeoutSeconds: 1 } })],
      timedOut: false,
    },
    {
      name: 'a dry run still reports the timeout',
      node: node({ taints: [gateTaint(K)] }),
      gating: [gating('cni', { gate: { timeoutSeconds: 60, dryRun: true } })],
      timedOut: true,
    },
  ])('$name', ({ node: n, gating: g, timedOut }) => {
    const decision = decideNodeGates(n, g, NOW);
    expect(decision.keys.map((k) => k.timedOut)).toEqual([timedOut]);
    // A timeout warns; it never lifts the taint.
    expect(decision.taints).toBeUndefined();
  });
});

describe('decideNodeGates: the condition message', () => {
  it.each([
    {
      name: 'every key blocked, each with what it waits for, keys in order',
      node: node({ taints: [gateTaint(AGENT), gateTaint(K)] }),
      gating: [
        gating('security', { namespace: 'sec', gate: { taintKey: AGENT, dryRun: true } }),
        gating('logs', { namespace: 'logging' }),
        gating('cni', { namespace: 'kube-system' }),
      ],
      message: `kube-system/cni, logging/logs (everynode.dev/not-ready); sec/security (${AGENT}, dry run)`,
    },
    {
      name: 'only blocking keys are named: not a BootstrapOnly key left open',
      node: node({ taints: [gateTaint(AGENT)] }),
      gating: [gating('cni'), gating('security', { gate: { taintKey: AGENT } })],
      message: `default/security (${AGENT})`,
    },
  ])('$name', ({ node: n, gating: g, message }) => {
    expect(decideNodeGates(n, g, NOW).condition).toEqual(waitingCondition(message));
  });
});

describe('gatedSince', () => {
  const at = (iso: string) => Date.parse(iso);
  it.each([
    { name: 'no condition: the creation time', node: node(), expected: CREATED },
    {
      name: 'condition False: its last transition',
      node: node({
        condition: { status: 'False', lastTransitionTime: '2026-01-01T00:30:00Z' },
      }),
      expected: at('2026-01-01T00:30:00Z'),
    },
    {
      name: 'condition Unknown without a time: the creation time',
      node: node({ condition: { status: 'Unknown' } }),
      expected: CREATED,
    },
    {
      name: 'condition True: not gated',
      node: node({ condition: { status: 'True', lastTransitionTime: new Date(NOW) } }),
      expected: undefined,
    },
    {
      name: 'no condition and no creation time: unknown',
      node: (() => {
        const n = node();
        if (n.metadata) n.metadata.creationTimestamp = undefined;
        return n;
      })(),
      expected: undefined,
    },
  ])('$name', ({ node: n, expected }) => {
    expect(gatedSince(n)).toBe(expected);
  });
});

describe('releasedGateKeys', () => {
  it.each([
    { name: 'no annotation', released: undefined, expected: {} },
    {
      name: 'a JSON map of times',
      released: { [K]: NOW_ISO, [AGENT]: EARLIER_ISO },
      expected: { [K]: NOW_ISO, [AGENT]: EARLIER_ISO },
    },
    { name: 'not JSON', released: '{oops', expected: {} },
    { name: 'a JSON array', released: '["a"]', expected: {} },
    { name: 'JSON null', released: 'null', expected: {} },
    { name: 'a JSON string', released: '"x"', expected: {} },
    {
      name: 'values that are not strings are dropped',
      released: `{"${K}":"${NOW_ISO}","b":1,"c":null}`,
      expected: { [K]: NOW_ISO },
    },
  ])('$name', ({ released, expected }) => {
    expect(releasedGateKeys(node(released === undefined ? {} : { released }))).toEqual(expected);
  });
});
