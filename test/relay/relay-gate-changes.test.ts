import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import {
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
} from '../../lib/core/node-readiness.ts';
import { changesNodeGate } from '../../lib/relay/relay-gate-changes.ts';
import { RelayNodeContext } from '../../lib/relay/relay-node-context.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

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
const at = new Date('2026-11-30T00:00:00Z');

function context(): RelayNodeContext {
  const known = new RelayNodeContext();
  known.seed('daemonsets', [cni, logs, misdeclared]);
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
    { name: 'gating pod started running', owner: cni, type: 'MODIFIED', changes: ['phase'], gates: true },
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
