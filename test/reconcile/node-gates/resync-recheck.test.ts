/**
 * A resync's re-check of node readiness gates (`sendGateRechecks`): on a resync only, one `node`
 * message per node the core rule (`nodesToRecheckGates`) names, carrying the resync's cause, sent
 * to the work queue in one batch. The work queue port is a recording sender here: the function
 * reaches nothing else.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_TAINT_KEY } from '../../../lib/core/node-gates/gate-declaration.ts';
import { nodesToRecheckGates } from '../../../lib/core/node-gates/gate-recheck.ts';
import { type NodeView, nodeViewsFor } from '../../../lib/core/node-view.ts';
import type { MessageCause } from '../../../lib/messages/message-cause.ts';
import { formatWorkMessage } from '../../../lib/messages/work-message.ts';
import type { OutgoingWork } from '../../../lib/queue/work-senders.ts';
import type { DepsPart } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { sendGateRechecks } from '../../../lib/reconcile/node-gates/resync-recheck.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const NOW = new Date('2026-01-01T01:00:00Z');
const KEY = DEFAULT_GATE_TAINT_KEY;
const RESYNC: MessageCause = { type: 'resync', at: '2026-01-01T01:00:00Z', eventId: 'resync-1' };

/** A DaemonSet gating `mode` on the default key for nodes labelled role=gated (no gate when undefined). */
function gating(mode?: 'BootstrapOnly' | 'Continuous'): V1DaemonSet {
  return aDaemonSet('agent', {
    nodeSelector: { role: 'gated' },
    ...(mode ? { annotations: { 'everynode.dev/node-readiness': mode } } : {}),
  });
}

/** A node, gated (the gate taint) or not, wanted by the DaemonSet or not. */
function node(name: string, options: { gated: boolean; wanted?: boolean }): V1Node {
  return aNode(name, {
    labels: options.wanted === false ? {} : { role: 'gated' },
    ...(options.gated ? { taints: [{ key: KEY, effect: 'NoSchedule' }] } : {}),
  });
}

/** The DaemonSet's pod on `nodeName`, ready or not. */
function pod(ds: V1DaemonSet, nodeName: string, ready: boolean): V1Pod {
  return aPod(`agent-${nodeName}`, { owner: ds, nodeName, phase: 'Running', ready });
}

/**
 * The DaemonSet's views of: a gated node whose pod is available (may be releasable), a gated node
 * whose pod is not ready (waits), a gated node the DaemonSet does not want (may be releasable), a
 * released node whose pod is available (agrees) and a released node without a pod (the taint may be
 * due back, for Continuous only).
 */
function views(ds: V1DaemonSet): NodeView[] {
  const nodes = [
    node('gated-available', { gated: true }),
    node('gated-waiting', { gated: true }),
    node('gated-unwanted', { gated: true, wanted: false }),
    node('released-available', { gated: false }),
    node('released-empty', { gated: false }),
  ];
  const pods = [
    pod(ds, 'gated-available', true),
    pod(ds, 'gated-waiting', false),
    pod(ds, 'released-available', true),
  ];
  return nodeViewsFor(ds, nodes, pods, [KEY]);
}

/** Deps whose work queue records every batch sent to it. */
function recordingDeps(): { deps: DepsPart<'workQueue', never>; batches: OutgoingWork[][] } {
  const batches: OutgoingWork[][] = [];
  const deps: DepsPart<'workQueue', never> = {
    ports: {
      workQueue: {
        async send(work) {
          batches.push([...work]);
        },
      },
    },
    memory: {},
    clock: () => NOW,
  };
  return { deps, batches };
}

describe('sendGateRechecks', () => {
  it("on a resync, sends one node message per node the core rule names, with the resync's cause, in one batch", async () => {
    const ds = gating('BootstrapOnly');
    const { deps, batches } = recordingDeps();
    const nodeViews = views(ds);
    const expected = nodesToRecheckGates(ds, nodeViews, NOW);
    expect(expected).toEqual(['gated-available', 'gated-unwanted']);
    expect(await sendGateRechecks(deps, ds, nodeViews, RESYNC, NOW)).toBe(2);
    expect(batches).toEqual([
      expected.map((name) => ({ message: { v: 1, kind: 'node', cause: RESYNC, node: { name } } })),
    ]);
    // Messages the work queue accepts as they are.
    for (const work of batches.flat()) expect(() => formatWorkMessage(work.message)).not.toThrow();
  });

  it('for a Continuous gate, also names a released node whose pod is not available', async () => {
    const ds = gating('Continuous');
    const { deps, batches } = recordingDeps();
    expect(await sendGateRechecks(deps, ds, views(ds), RESYNC, NOW)).toBe(3);
    expect(batches.flat().map((work) => work.message.kind === 'node' && work.message.node.name)).toEqual([
      'gated-available',
      'gated-unwanted',
      'released-empty',
    ]);
  });

  it.each<MessageCause>([
    { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: '42' },
    { type: 'requeue', reason: 'status refresh', requestedAt: '2026-01-01T00:59:00Z' },
    { type: 'ec2', eventId: 'e-1', instanceId: 'i-0123456789abcdef0', state: 'running' },
    { type: 'replay', replayName: 'replay-1', eventId: 'e-2' },
  ])('sends nothing on a $type cause, whatever the views say', async (cause) => {
    const ds = gating('Continuous');
    const { deps, batches } = recordingDeps();
    expect(await sendGateRechecks(deps, ds, views(ds), cause, NOW)).toBe(0);
    expect(batches).toEqual([]);
  });

  it('sends nothing, not even an empty batch, when no node disagrees or the DaemonSet gates nothing', async () => {
    const { deps, batches } = recordingDeps();
    const bootstrap = gating('BootstrapOnly');
    const agreeing = views(bootstrap).filter((view) => view.name.startsWith('released-'));
    expect(await sendGateRechecks(deps, bootstrap, agreeing, RESYNC, NOW)).toBe(0);
    const ungated = gating();
    expect(await sendGateRechecks(deps, ungated, views(ungated), RESYNC, NOW)).toBe(0);
    expect(batches).toEqual([]);
  });

  it('rejects when the work queue does not accept the batch: the DaemonSet step fails and is retried', async () => {
    const ds = gating('BootstrapOnly');
    const deps: DepsPart<'workQueue', never> = {
      ports: { workQueue: { send: async () => Promise.reject(new Error('queue unavailable')) } },
      memory: {},
      clock: () => NOW,
    };
    await expect(sendGateRechecks(deps, ds, views(ds), RESYNC, NOW)).rejects.toThrow('queue unavailable');
  });
});
