import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { changesNodeGate } from '../../../lib/relay/filters/gate-changes.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

function versioned(ds: V1DaemonSet, resourceVersion = '7'): DaemonSet {
  return { ...ds, metadata: { ...ds.metadata, resourceVersion } } as DaemonSet;
}

const cni = versioned(
  aDaemonSet('cni', { uid: 'ds-cni', annotations: { [NODE_READINESS_ANNOTATION]: 'Continuous' } }),
);
const logs = versioned(aDaemonSet('logs', { uid: 'ds-logs' }));
const misdeclared = versioned(
  aDaemonSet('misdeclared', {
    uid: 'ds-misdeclared',
    annotations: { [NODE_READINESS_ANNOTATION]: 'Sometimes' },
  }),
);
const boot = versioned(
  aDaemonSet('boot', { uid: 'ds-boot', annotations: { [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' } }),
);
const AGENT = 'example.com/agent-not-ready';
const agentGate = {
  [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
  [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT,
};
const agent = versioned(aDaemonSet('agent', { uid: 'ds-agent', annotations: agentGate }));
/** Gates the same key as `agent`, Continuous: the key is then Continuous. */
const agentWatch = versioned(
  aDaemonSet('agent-watch', {
    uid: 'ds-agent-watch',
    annotations: { ...agentGate, [NODE_READINESS_ANNOTATION]: 'Continuous' },
  }),
);
const at = new Date('2026-11-30T00:00:00Z');

/**
 * The relay's view: n1 never gated (no taint), joining (tainted with the default gate key),
 * joining-agent (tainted with the agent's key), kept (the default key as NoExecute: no gate's).
 */
function context(daemonSets: DaemonSet[] = [cni, logs, misdeclared]): RelayNodeContext {
  const known = new RelayNodeContext();
  known.seed('daemonsets', daemonSets);
  known.seed('nodes', [
    aNode('n1'),
    aNode('joining', { taints: [{ key: DEFAULT_GATE_TAINT_KEY, effect: 'NoSchedule' }] }),
    aNode('joining-agent', { taints: [{ key: AGENT, effect: 'NoSchedule' }] }),
    aNode('kept', { taints: [{ key: DEFAULT_GATE_TAINT_KEY, effect: 'NoExecute' }] }),
  ]);
  return known;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

describe('changesNodeGate', () => {
  it.each<{
    name: string;
    owner: V1DaemonSet;
    type: EventType;
    changes: string[];
    ready?: boolean;
    gates: boolean;
  }>([
    { name: 'gating pod turned ready', owner: cni, type: 'MODIFIED', changes: ['ready'], gates: true },
    {
      name: 'gating pod started running, not ready (phase alone)',
      owner: cni,
      type: 'MODIFIED',
      changes: ['phase'],
      gates: false,
    },
    {
      name: 'gating pod turned running and ready in one update',
      owner: cni,
      type: 'MODIFIED',
      changes: ['phase', 'ready'],
      gates: true,
    },
    {
      name: 'gating pod failed',
      owner: cni,
      type: 'MODIFIED',
      changes: ['phase', 'terminal'],
      gates: true,
    },
    { name: 'gating pod terminating', owner: cni, type: 'MODIFIED', changes: ['deleting'], gates: true },
    { name: 'gating pod deleted', owner: cni, type: 'DELETED', changes: [], gates: true },
    {
      name: 'gating pod created not ready',
      owner: cni,
      type: 'ADDED',
      changes: [],
      ready: false,
      gates: false,
    },
    {
      name: 'gating pod seen first already ready',
      owner: cni,
      type: 'ADDED',
      changes: [],
      ready: true,
      gates: true,
    },
    { name: 'gating pod bound', owner: cni, type: 'MODIFIED', changes: ['node'], gates: false },
    { name: 'gating pod released', owner: cni, type: 'MODIFIED', changes: ['controller'], gates: false },
    { name: 'non-gating pod turned ready', owner: logs, type: 'MODIFIED', changes: ['ready'], gates: false },
    { name: 'non-gating pod deleted', owner: logs, type: 'DELETED', changes: [], gates: false },
    {
      name: 'pod of a DaemonSet whose gate is invalid turned ready',
      owner: misdeclared,
      type: 'MODIFIED',
      changes: ['ready'],
      gates: false,
    },
  ])('$name → gates its node: $gates', ({ owner, type, changes, ready, gates }) => {
    const pod = aPod(`${owner.metadata?.name}-n1`, { owner, nodeName: 'n1', ready: ready ?? false });
    expect(changesNodeGate(context(), type, changes, pod)).toBe(gates);
  });

  it.each<{
    name: string;
    owner: DaemonSet;
    node: string;
    type: EventType;
    changes: string[];
    daemonSets?: DaemonSet[];
    gates: boolean;
  }>([
    {
      name: 'BootstrapOnly, its node carries the gate taint: turned ready',
      owner: boot,
      node: 'joining',
      type: 'MODIFIED',
      changes: ['ready'],
      gates: true,
    },
    {
      name: 'BootstrapOnly, its node carries the gate taint: deleted',
      owner: boot,
      node: 'joining',
      type: 'DELETED',
      changes: [],
      gates: true,
    },
    {
      name: 'BootstrapOnly, its node untainted (released or never gated): turned ready',
      owner: boot,
      node: 'n1',
      type: 'MODIFIED',
      changes: ['ready'],
      gates: false,
    },
    {
      name: 'BootstrapOnly, its node untainted: failed',
      owner: boot,
      node: 'n1',
      type: 'MODIFIED',
      changes: ['phase', 'terminal'],
      gates: false,
    },
    {
      name: 'BootstrapOnly, its node untainted: deleted',
      owner: boot,
      node: 'n1',
      type: 'DELETED',
      changes: [],
      gates: false,
    },
    {
      name: "BootstrapOnly, its node tainted with another gate's key only",
      owner: boot,
      node: 'joining-agent',
      type: 'MODIFIED',
      changes: ['ready'],
      gates: false,
    },
    {
      name: 'BootstrapOnly, its node carries the key as NoExecute (no gate taint)',
      owner: boot,
      node: 'kept',
      type: 'MODIFIED',
      changes: ['ready'],
      gates: false,
    },
    {
      name: 'BootstrapOnly, its node unknown to the relay yet: the safe side',
      owner: boot,
      node: 'unseen',
      type: 'MODIFIED',
      changes: ['ready'],
      gates: true,
    },
    {
      name: 'BootstrapOnly, its custom key tainted',
      owner: agent,
      node: 'joining-agent',
      type: 'MODIFIED',
      changes: ['ready'],
      daemonSets: [agent],
      gates: true,
    },
    {
      name: 'BootstrapOnly, its key also gated Continuous by another DaemonSet: on an untainted node too',
      owner: agent,
      node: 'n1',
      type: 'MODIFIED',
      changes: ['ready'],
      daemonSets: [agent, agentWatch],
      gates: true,
    },
    {
      name: 'Continuous, its node untainted: turned not ready (the gate is restored)',
      owner: cni,
      node: 'n1',
      type: 'MODIFIED',
      changes: ['ready'],
      daemonSets: [cni, logs],
      gates: true,
    },
    {
      name: 'BootstrapOnly, its key also gated Continuous (the default key): on an untainted node too',
      owner: boot,
      node: 'n1',
      type: 'MODIFIED',
      changes: ['ready'],
      daemonSets: [cni, boot],
      gates: true,
    },
  ])('$name → gates its node: $gates', ({ owner, node, type, changes, daemonSets, gates }) => {
    const pod = aPod(`${owner.metadata?.name}-${node}`, { owner, nodeName: node });
    expect(changesNodeGate(context(daemonSets ?? [boot, logs]), type, changes, pod)).toBe(gates);
  });

  it('follows the node: a BootstrapOnly gate moves while the node shows its taint, not once it is lifted', () => {
    const known = context([boot]);
    const pod = aPod('boot-joining', { owner: boot, nodeName: 'joining' });
    expect(changesNodeGate(known, 'MODIFIED', ['ready'], pod)).toBe(true);
    const released = aNode('joining');
    known.observe('nodes', { type: 'MODIFIED', object: released, resourceVersion: '9' });
    expect(changesNodeGate(known, 'MODIFIED', ['ready'], pod)).toBe(false);
  });

  describe('another gating DaemonSet on the node, its pods all not ready', () => {
    const securityGate = { [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' };
    const security = versioned(aDaemonSet('security', { uid: 'ds-security', annotations: securityGate }));
    const elsewhere = versioned(
      aDaemonSet('security', {
        uid: 'ds-security',
        annotations: securityGate,
        nodeSelector: { disk: 'ssd' },
      }),
    );
    const deleting = versioned({
      ...security,
      metadata: { ...security.metadata, deletionTimestamp: new Date('2026-11-30T00:00:00Z') },
    } as V1DaemonSet);
    const otherKey = versioned(
      aDaemonSet('security', {
        uid: 'ds-security',
        annotations: { ...securityGate, [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT },
      }),
    );
    const pod = (name: string, ready: boolean, extra: Parameters<typeof aPod>[1] = {}) =>
      aPod(name, { owner: security, nodeName: 'joining', ready, ...extra });

    it.each<{
      name: string;
      securityDs?: DaemonSet;
      pods: ReturnType<typeof aPod>[];
      type?: EventType;
      changes?: string[];
      gates: boolean;
    }>([
      {
        name: 'turned ready: moves nothing (the last to turn ready is forwarded)',
        pods: [pod('security-joining', false)],
        gates: false,
      },
      {
        name: 'turned ready while the other is ready: forwarded',
        pods: [pod('security-joining', true)],
        gates: true,
      },
      {
        name: 'the other has no pod on the node yet: forwarded',
        pods: [],
        gates: true,
      },
      {
        name: 'the other has a ready pod beside a not-ready one (a surge): forwarded',
        pods: [pod('security-old', true), pod('security-new', false)],
        gates: true,
      },
      {
        name: "the other's only pod is terminating: forwarded",
        pods: [pod('security-joining', false, { deletionTimestamp: new Date('2026-11-30T00:00:00Z') })],
        gates: true,
      },
      {
        name: 'the other should not run on the node: forwarded',
        securityDs: elsewhere,
        pods: [pod('security-joining', false)],
        gates: true,
      },
      {
        name: 'the other is being deleted (no step acts for it): forwarded',
        securityDs: deleting,
        pods: [pod('security-joining', false)],
        gates: true,
      },
      {
        name: 'the other gates another key: forwarded',
        securityDs: otherKey,
        pods: [pod('security-joining', false)],
        gates: true,
      },
      {
        name: 'removed, not a readiness change: forwarded',
        pods: [pod('security-joining', false)],
        type: 'DELETED',
        changes: [],
        gates: true,
      },
      {
        name: 'terminating: forwarded',
        pods: [pod('security-joining', false)],
        changes: ['deleting'],
        gates: true,
      },
    ])('$name', ({ securityDs, pods, type, changes, gates }) => {
      const known = context([boot, securityDs ?? security]);
      const own = aPod('boot-joining', { owner: boot, nodeName: 'joining', ready: true });
      known.seed('pods', [own, ...pods]);
      expect(changesNodeGate(known, type ?? 'MODIFIED', changes ?? ['ready'], own)).toBe(gates);
    });
  });

  it('knows no gate without the relay context', () => {
    const pod = aPod('cni-n1', { owner: cni, nodeName: 'n1' });
    expect(changesNodeGate(undefined, 'MODIFIED', ['ready'], pod)).toBe(false);
  });
});

describe('RelayNodeContext and gates', () => {
  it('follows a DaemonSet declaring, changing and dropping its gate, and its deletion', () => {
    const known = new RelayNodeContext();
    known.seed('daemonsets', [logs]);
    const pod = aPod('logs-n1', { owner: logs, nodeName: 'n1' });
    expect(known.gatesNode(pod)).toBe(false);
    const gated = versioned(
      aDaemonSet('logs', {
        uid: 'ds-logs',
        annotations: {
          [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
          [NODE_READINESS_TAINT_KEY_ANNOTATION]: 'example.com/logs',
        },
      }),
      '8',
    );
    known.observe('daemonsets', { type: 'MODIFIED', object: gated, resourceVersion: '8' });
    expect(known.gatesNode(pod)).toBe(true);
    const invalid = versioned(
      aDaemonSet('logs', {
        uid: 'ds-logs',
        annotations: {
          [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
          [NODE_READINESS_TAINT_KEY_ANNOTATION]: 'not a key!',
        },
      }),
      '9',
    );
    known.observe('daemonsets', { type: 'MODIFIED', object: invalid, resourceVersion: '9' });
    expect(known.gatesNode(pod)).toBe(false);
    known.observe('daemonsets', { type: 'MODIFIED', object: gated, resourceVersion: '10' });
    expect(known.gatesNode(pod)).toBe(true);
    known.observe('daemonsets', { type: 'DELETED', object: gated, resourceVersion: '11' });
    expect(known.gatesNode(pod)).toBe(false);
    known.seed('daemonsets', [gated]);
    expect(known.gatesNode(pod)).toBe(true);
    known.seed('daemonsets', []);
    expect(known.gatesNode(pod)).toBe(false);
    expect(known.gatesNode(aPod('orphan', { nodeName: 'n1' }))).toBe(false);
  });

  it('hints of a node known by name: the node as watched, its pods and every DaemonSet; none for an unknown node', () => {
    const known = context();
    known.seed('nodes', [aNode('n1', { labels: { disk: 'ssd' } })]);
    known.seed('pods', [aPod('cni-n1', { owner: cni, nodeName: 'n1', uid: 'p1' })]);
    expect(known.nodeHintsFor('n1', at)).toMatchObject({
      observedAt: at.toISOString(),
      node: { name: 'n1', labels: { disk: 'ssd' } },
      pods: [{ uid: 'p1' }],
    });
    expect(
      known
        .nodeHintsFor('n1', at)
        ?.daemonSets.map((ds) => ds.uid)
        .sort(),
    ).toEqual(['ds-cni', 'ds-logs', 'ds-misdeclared']);
    expect(known.nodeHintsFor('n9', at)).toBeUndefined();
  });
});
