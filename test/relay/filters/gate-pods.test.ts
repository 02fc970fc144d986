/**
 * Whether a gating pod's change can still move its node's gate (`gateMovesOnNode`), asked directly
 * of the relay's context: what the relay does not know counts as movable, a BootstrapOnly key moves
 * only while the node carries its taint, and a readiness change moves nothing while another gating
 * DaemonSet that should run there has live pods there, none ready. `gateOf` is worked out once per
 * watched version of a DaemonSet. (Which pod events ask at all: `gate-changes.test.ts`.)
 */
import type { V1DaemonSet, V1Pod, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
  nodeReadinessOf,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { gateMovesOnNode, gateOf } from '../../../lib/relay/filters/gate-pods.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const AGENT_KEY = 'example.com/agent-not-ready';
const gated = (mode: string, key?: string) => ({
  [NODE_READINESS_ANNOTATION]: mode,
  ...(key === undefined ? {} : { [NODE_READINESS_TAINT_KEY_ANNOTATION]: key }),
});

const boot = aDaemonSet('boot', { uid: 'ds-boot', annotations: gated('BootstrapOnly') }) as DaemonSet;
const security = aDaemonSet('security', {
  uid: 'ds-security',
  annotations: gated('BootstrapOnly'),
}) as DaemonSet;
const watcher = aDaemonSet('watcher', { uid: 'ds-watcher', annotations: gated('Continuous') }) as DaemonSet;
const agent = aDaemonSet('agent', {
  uid: 'ds-agent',
  annotations: gated('BootstrapOnly', AGENT_KEY),
}) as DaemonSet;
const logs = aDaemonSet('logs', { uid: 'ds-logs' }) as DaemonSet;

const gateTaint = (key = DEFAULT_GATE_TAINT_KEY): V1Taint => ({ key, effect: 'NoSchedule' });

/** The relay's view of the nodes, the DaemonSets `daemonSets` and the pods `pods`. */
function known(daemonSets: DaemonSet[], pods: V1Pod[] = []): RelayNodeContext {
  const context = new RelayNodeContext();
  context.seed('daemonsets', daemonSets);
  context.seed('nodes', [
    aNode('joining', { taints: [gateTaint()] }),
    aNode('released'),
    aNode('kept', { taints: [{ key: DEFAULT_GATE_TAINT_KEY, effect: 'NoExecute' }] }),
    aNode('both', { taints: [gateTaint(), gateTaint(AGENT_KEY)] }),
  ]);
  context.seed('pods', pods);
  return context;
}

const podOf = (ds: V1DaemonSet, node: string, ready = true) =>
  aPod(`${ds.metadata?.name}-${node}`, {
    owner: ds,
    nodeName: node,
    uid: `p-${ds.metadata?.name}-${node}`,
    ready,
  });

/** A pod of `ds` pinned to `node` by node affinity, not bound yet (no `spec.nodeName`). */
function pinned(ds: DaemonSet, node: string, uid: string): V1Pod {
  const pod = daemonPodFor(ds, node, 'hash1');
  pod.metadata = { ...pod.metadata, uid, resourceVersion: '2' };
  return pod;
}

describe('gateOf', () => {
  it("is the DaemonSet's gate, worked out once per object (a watched version is never changed in place)", () => {
    const ds = structuredClone(agent);
    const gate = gateOf(ds);
    expect(gate).toEqual(nodeReadinessOf(ds));
    expect(gate).toMatchObject({ mode: 'BootstrapOnly', taintKey: AGENT_KEY });
    expect(gateOf(ds)).toBe(gate);
    // The same object changed in place keeps its first answer; the next version is judged anew.
    ds.metadata = { ...ds.metadata, annotations: gated('Continuous') };
    expect(gateOf(ds)).toBe(gate);
    expect(gateOf(structuredClone(ds))).toMatchObject({
      mode: 'Continuous',
      taintKey: DEFAULT_GATE_TAINT_KEY,
    });
    expect(gateOf(logs)).toBeUndefined();
  });
});

describe('gateMovesOnNode', () => {
  it.each<{ name: string; pod: () => V1Pod; daemonSets: DaemonSet[] }>([
    { name: 'its DaemonSet is unknown to the relay', pod: () => podOf(boot, 'released'), daemonSets: [logs] },
    {
      name: 'it has no controller',
      pod: () => aPod('orphan', { nodeName: 'released', uid: 'p-orphan' }),
      daemonSets: [boot],
    },
    { name: 'its DaemonSet gates nothing', pod: () => podOf(logs, 'released'), daemonSets: [boot, logs] },
    {
      name: 'it targets no node',
      pod: () => aPod('boot-nowhere', { owner: boot, uid: 'p-nowhere' }),
      daemonSets: [boot],
    },
    { name: 'its node is unknown to the relay', pod: () => podOf(boot, 'unseen'), daemonSets: [boot] },
  ])('counts as movable when $name', ({ pod, daemonSets }) => {
    expect(gateMovesOnNode(known(daemonSets), pod(), true)).toBe(true);
    expect(gateMovesOnNode(known(daemonSets), pod(), false)).toBe(true);
  });

  it.each([
    { node: 'joining', moves: true },
    { node: 'released', moves: false },
    { node: 'kept', moves: false },
  ])(
    'BootstrapOnly on node $node (its gate taint NoSchedule only) → $moves, readiness or not',
    ({ node, moves }) => {
      const context = known([boot, logs]);
      expect(gateMovesOnNode(context, podOf(boot, node), true)).toBe(moves);
      expect(gateMovesOnNode(context, podOf(boot, node), false)).toBe(moves);
    },
  );

  it('a key any DaemonSet gates Continuous moves on an untainted node too, whoever the pod belongs to', () => {
    expect(gateMovesOnNode(known([boot, watcher]), podOf(boot, 'released'), true)).toBe(true);
    expect(gateMovesOnNode(known([boot, watcher]), podOf(watcher, 'released'), true)).toBe(true);
    // Continuous on another key makes this one no less BootstrapOnly.
    const elsewhere = aDaemonSet('watcher', {
      uid: 'ds-watcher',
      annotations: gated('Continuous', AGENT_KEY),
    }) as DaemonSet;
    expect(gateMovesOnNode(known([boot, elsewhere]), podOf(boot, 'released'), true)).toBe(false);
  });

  it('finds a pinned pod by its target node, and counts pinned pods of another DaemonSet', () => {
    const context = known([boot, logs]);
    expect(gateMovesOnNode(context, pinned(boot, 'joining', 'p-boot'), true)).toBe(true);
    expect(gateMovesOnNode(context, pinned(boot, 'released', 'p-boot'), true)).toBe(false);
    const closing = known([boot, security], [pinned(security, 'joining', 'p-security')]);
    expect(gateMovesOnNode(closing, pinned(boot, 'joining', 'p-boot'), true)).toBe(false);
  });

  it("a readiness change moves nothing while another gating DaemonSet's live pods there are none ready; a removal still does", () => {
    const own = podOf(boot, 'joining');
    const closing = known([boot, security], [own, podOf(security, 'joining', false)]);
    expect(gateMovesOnNode(closing, own, true)).toBe(false);
    expect(gateMovesOnNode(closing, own, false)).toBe(true);
    // Its own DaemonSet's pods there are not another's: its pod turned not ready beside a surge pod moves it.
    const notReady = podOf(boot, 'joining', false);
    const surge = aPod('boot-joining-new', {
      owner: boot,
      nodeName: 'joining',
      uid: 'p-surge',
      ready: false,
    });
    expect(gateMovesOnNode(known([boot], [notReady, surge]), notReady, true)).toBe(true);
    // Pods of a DaemonSet the relay no longer knows keep nothing closed.
    expect(gateMovesOnNode(known([boot], [own, podOf(security, 'joining', false)]), own, true)).toBe(true);
    // Nor those of a DaemonSet that gates nothing.
    expect(gateMovesOnNode(known([boot, logs], [own, podOf(logs, 'joining', false)]), own, true)).toBe(true);
  });

  it('places the other DaemonSet tolerating every gate key in use, and only those', () => {
    // The node also carries the agent's gate taint, which neither DaemonSet tolerates itself.
    const own = podOf(boot, 'both');
    const pods = [own, podOf(security, 'both', false)];
    // The agent's key is a gate key in use: tolerated, so security should run there and keeps it closed.
    expect(gateMovesOnNode(known([boot, security, agent], pods), own, true)).toBe(false);
    // Without the agent's DaemonSet that taint is just a taint: security should not run there.
    expect(gateMovesOnNode(known([boot, security], pods), own, true)).toBe(true);
  });
});
