/**
 * The node readiness gates, end to end on the reconcile side: the simulated cluster over HTTP, the
 * reconcile handler on the work queue and the router forwarding its requeues (the reconcile
 * harness). Tests send the `node` messages the router sends for a node's events and for a gating
 * pod's readiness, and look at the cluster: the node's taints, marker, condition and Events.
 */
import type { CoreV1Event, V1ControllerRevision, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
} from '../../../lib/core/node-gates/gate-decision.ts';
import type { NodeHints } from '../../../lib/messages/node-hints.ts';
import type { NodeMessage } from '../../../lib/messages/work-message.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { reconcileNode } from '../../../lib/reconcile/node-step/node-step.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import { HINT_MAX_AGE_SECONDS } from '../../../lib/reconcile/reads/pair-reader.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  isReady,
  nodeMessage,
  pairMessage,
  podsOf,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

const DEFAULT_KEY = 'everynode.dev/not-ready';
const gateTaint = (key: string): V1Taint => ({ key, effect: 'NoSchedule' });

describe('node readiness gates', () => {
  let harness: Harness;
  let plain: ReturnType<typeof createDaemonSet>;
  let boot: ReturnType<typeof createDaemonSet>;
  let cont: ReturnType<typeof createDaemonSet>;

  const node = (name: string): V1Node | undefined => harness.sim.nodes.get(name);
  const taintKeys = (name: string) => (node(name)?.spec?.taints ?? []).map((t) => t.key);
  const condition = (name: string) =>
    node(name)?.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
  const nodeEvents = (name: string, reason: string) =>
    (harness.sim.store.list('events') as unknown as CoreV1Event[]).filter(
      (e) => e.involvedObject.kind === 'Node' && e.involvedObject.name === name && e.reason === reason,
    );
  const podOn = (ds: typeof boot, name: string): V1Pod | undefined =>
    podsOf(harness, ds.metadata?.uid ?? '').find(
      (pod) => pod.spec?.nodeName === name && !pod.metadata?.deletionTimestamp,
    );

  /** Sends the node message the router sends for a node event or a gating pod's readiness; waits for quiet. */
  async function nodeChanged(name: string): Promise<void> {
    await harness.send(nodeMessage(name));
    await harness.quiet();
    await harness.deps.memory.events.flush();
  }

  /** Waits for `ds`'s pod on `name` to be Ready, then announces it as the router would. */
  async function readyOn(ds: typeof boot, name: string): Promise<void> {
    await waitFor(`${ds.metadata?.name} ready on ${name}`, () => {
      const pod = podOn(ds, name);
      return pod !== undefined && isReady(pod);
    });
    await nodeChanged(name);
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1')] });
    plain = createDaemonSet(harness, aDaemonSet('plain'));
    boot = createDaemonSet(
      harness,
      aDaemonSet('boot', {
        annotations: { 'everynode.dev/node-readiness': 'BootstrapOnly' },
        nodeSelector: { gate: 'boot' },
        minReadySeconds: 2,
      }),
    );
    cont = createDaemonSet(
      harness,
      aDaemonSet('cont', {
        annotations: {
          'everynode.dev/node-readiness': 'Continuous',
          'everynode.dev/node-readiness-taint-key': 'example.com/agent-not-ready',
        },
        nodeSelector: { gate: 'cont' },
      }),
    );
    await harness.send(daemonSetMessage(plain), daemonSetMessage(boot), daemonSetMessage(cont));
    await waitFor('plain on n1', () => podOn(plain, 'n1') !== undefined);
    await harness.quiet();
  });
  afterAll(async () => harness?.stop());

  it('daemon pods tolerate the gate keys: the DaemonSet step places them on a gated node, same revision hash', async () => {
    harness.sim.nodes.add('t1', { taints: [gateTaint(DEFAULT_KEY)] });
    await harness.send(daemonSetMessage(plain));
    await waitFor('plain on t1', () => podOn(plain, 't1') !== undefined);
    const onGated = podOn(plain, 't1');
    expect(onGated?.spec?.tolerations).toContainEqual({
      key: DEFAULT_KEY,
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    const hash = (pod: V1Pod | undefined) => pod?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    expect(hash(onGated)).toBeDefined();
    expect(hash(onGated)).toBe(hash(podOn(plain, 'n1')));
    // The pair step too: the pod replaced on the gated node tolerates the gate.
    harness.sim.store.delete('pods', 'default', onGated?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await harness.send(pairMessage(plain, 't1'));
    await harness.quiet();
    const replaced = podOn(plain, 't1');
    expect(replaced?.metadata?.uid).not.toBe(onGated?.metadata?.uid);
    expect(replaced?.spec?.tolerations).toContainEqual({
      key: DEFAULT_KEY,
      operator: 'Exists',
      effect: 'NoSchedule',
    });
  });

  it('BootstrapOnly: the gate stays while the gating pod is not available, and is lifted once it is (minReadySeconds: a requeue)', async () => {
    harness.sim.nodes.add('g1', { labels: { gate: 'boot' }, taints: [gateTaint(DEFAULT_KEY)] });
    await nodeChanged('g1');
    expect(podOn(boot, 'g1')?.spec?.tolerations).toContainEqual({
      key: DEFAULT_KEY,
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    expect(podOn(plain, 'g1')).toBeDefined();
    expect(taintKeys('g1')).toEqual([DEFAULT_KEY]);
    // Bootstrapping: the taint shows that the node waits; no condition is written before the release.
    expect(condition('g1')).toBeUndefined();

    // Ready, not yet available (minReadySeconds 2): the node step asks to look again when it is.
    await readyOn(boot, 'g1');
    await waitFor('g1 released', () => !taintKeys('g1').includes(DEFAULT_KEY), 15_000);
    await harness.quiet();
    await harness.deps.memory.events.flush();
    const marker = JSON.parse(node('g1')?.metadata?.annotations?.[GATE_RELEASED_ANNOTATION] ?? '{}');
    expect(Object.keys(marker)).toEqual([DEFAULT_KEY]);
    expect(condition('g1')).toMatchObject({ status: 'True', reason: 'DaemonSetsReady' });
    const [lifted] = nodeEvents('g1', 'NodeReadinessGateLifted');
    expect(lifted?.type).toBe('Normal');
    expect(lifted?.message).toContain(DEFAULT_KEY);
    expect(lifted?.message).toContain('default/boot');
  });

  it('BootstrapOnly: a released node is not gated again when its gating pod goes', async () => {
    const pod = podOn(boot, 'g1');
    harness.sim.store.delete('pods', 'default', pod?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await nodeChanged('g1');
    expect(taintKeys('g1')).toEqual([]);
    expect(podOn(boot, 'g1')?.metadata?.uid).not.toBe(pod?.metadata?.uid);
    expect(nodeEvents('g1', 'NodeReadinessGateRestored')).toEqual([]);
  });

  it('a node no gating DaemonSet wants is released at once', async () => {
    harness.sim.nodes.add('g2', { taints: [gateTaint(DEFAULT_KEY)] });
    harness.sim.counters.reset();
    await nodeChanged('g2');
    expect(taintKeys('g2')).toEqual([]);
    // The release costs the step its guarded patch and the condition, and no read of its own.
    const requests = (verb: string, subresource: string) =>
      harness.sim.counters.total({ verb, resource: 'nodes', subresource, userAgent: /reconcile/ });
    expect([requests('get', ''), requests('patch', ''), requests('patch', 'status')]).toEqual([1, 1, 1]);
    expect(condition('g2')).toMatchObject({ status: 'True' });
    expect(nodeEvents('g2', 'NodeReadinessGateLifted')[0]?.message).toContain(
      'no gating DaemonSet should run here',
    );
  });

  it('Continuous: the taint comes back when the gating pod goes, and goes when its replacement is ready', async () => {
    const key = 'example.com/agent-not-ready';
    harness.sim.nodes.add('c1', { labels: { gate: 'cont' }, taints: [gateTaint(key)] });
    await nodeChanged('c1');
    await readyOn(cont, 'c1');
    expect(taintKeys('c1')).toEqual([]);
    expect(condition('c1')?.status).toBe('True');

    const pod = podOn(cont, 'c1');
    harness.sim.store.delete('pods', 'default', pod?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await nodeChanged('c1');
    expect(taintKeys('c1')).toEqual([key]);
    expect(condition('c1')).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
    expect(condition('c1')?.message).toContain('default/cont');
    expect(nodeEvents('c1', 'NodeReadinessGateRestored')[0]?.message).toContain(key);
    expect(node('c1')?.metadata?.annotations?.[GATE_RELEASED_ANNOTATION]).toBeUndefined();

    await readyOn(cont, 'c1');
    expect(taintKeys('c1')).toEqual([]);
    expect(nodeEvents('c1', 'NodeReadinessGateLifted')).toHaveLength(2);
  });

  /** The relay's view of the cluster as it is now, as a relay that just listed everything. */
  function relayContext(): RelayNodeContext {
    const context = new RelayNodeContext();
    const list = <T>(key: Parameters<typeof harness.sim.store.list>[0]) =>
      harness.sim.store.list(key) as unknown as T[];
    context.seed('nodes', list<V1Node>('nodes'));
    context.seed('pods', list<V1Pod>('pods'));
    context.seed('daemonsets', list<DaemonSet>('apps/daemonsets'));
    context.seed('controllerrevisions', list<V1ControllerRevision>('apps/controllerrevisions'));
    return context;
  }

  /** The node message the router sends for a gating pod's event, with the relay's hints of the node. */
  function hintedMessage(name: string, hints: NodeHints | undefined): NodeMessage {
    expect(hints).toBeDefined();
    return { ...(nodeMessage(name) as NodeMessage), ...(hints ? { hints } : {}) };
  }

  /** Writes the Events still lingering, then resets the request counters. */
  async function countFromHere(): Promise<void> {
    await harness.deps.memory.events.flush();
    harness.sim.counters.reset();
  }

  /** The reconcile side's API requests since {@link countFromHere}, as `verb resource[/status]`. */
  function requestsMade(): string[] {
    return harness.sim.counters
      .snapshot()
      .filter((entry) => /reconcile/.test(entry.userAgent))
      .flatMap((entry) => {
        const what = `${entry.verb} ${entry.resource}${entry.subresource ? `/${entry.subresource}` : ''}`;
        return Array.from({ length: entry.count }, () => what);
      })
      .sort();
  }

  describe("from the relay's hints", () => {
    const key = 'example.com/agent-not-ready';
    const nodes = ['h1', 'h2', 'h3', 'h4', 'h5'];

    // Gated nodes whose gating pod is ready, and whose node step has not run since: each waits to be released.
    beforeAll(async () => {
      for (const name of nodes)
        harness.sim.nodes.add(name, { labels: { gate: 'cont' }, taints: [gateTaint(key)] });
      await harness.send(...nodes.map((name) => nodeMessage(name)));
      await harness.quiet();
      await waitFor('cont ready on every h node', () =>
        nodes.every((name) => {
          const pod = podOn(cont, name);
          return pod !== undefined && isReady(pod);
        }),
      );
      await harness.deps.memory.events.flush();
      for (const name of nodes) expect(condition(name)).toBeUndefined();
    });

    it('that carry the gate state, releasing a node costs the patch, the condition and the Event', async () => {
      const hints = relayContext().nodeHintsFor('h1', new Date());
      // The gate state is known, and empty: no marker, no condition yet.
      expect(hints?.node.gate).toEqual({});
      await countFromHere();
      const report = await reconcileNode(harness.deps, hintedMessage('h1', hints), reconcilePair);
      await harness.deps.memory.events.flush();
      expect(report.gatesLifted).toBe(1);
      expect(taintKeys('h1')).toEqual([]);
      expect(condition('h1')).toMatchObject({ status: 'True', reason: 'DaemonSetsReady' });
      expect(nodeEvents('h1', 'NodeReadinessGateLifted')).toHaveLength(1);
      expect(requestsMade()).toEqual(['create events', 'patch nodes', 'patch nodes/status']);
    });

    it("that lack the gate state (an older relay's), reads the node for the gate before writing", async () => {
      const hints = relayContext().nodeHintsFor('h2', new Date());
      const { gate: _, ...older } = hints?.node ?? { name: 'h2', resourceVersion: '' };
      await countFromHere();
      const report = await reconcileNode(
        harness.deps,
        hintedMessage('h2', hints && { ...hints, node: older }),
        reconcilePair,
      );
      await harness.deps.memory.events.flush();
      expect(report.gatesLifted).toBe(1);
      expect(taintKeys('h2')).toEqual([]);
      // The node read once, for the gate; the hinted pods are older than it, so they are listed with it.
      expect(requestsMade()).toEqual([
        'create events',
        'get nodes',
        'list pods',
        'patch nodes',
        'patch nodes/status',
      ]);
    });

    it('older than the hint age limit, reads the node as an unhinted step does', async () => {
      const observedAt = new Date(Date.now() - (HINT_MAX_AGE_SECONDS + 5) * 1000);
      const hints = relayContext().nodeHintsFor('h3', observedAt);
      await countFromHere();
      const report = await reconcileNode(harness.deps, hintedMessage('h3', hints), reconcilePair);
      expect(report.gatesLifted).toBe(1);
      expect(taintKeys('h3')).toEqual([]);
      const made = requestsMade();
      expect(made.filter((r) => r === 'get nodes')).toHaveLength(1);
      expect(made).toContain('list pods');
    });

    it('when the node changed since the hint: the guarded patch meets 409, the node is read and decided again', async () => {
      const hints = relayContext().nodeHintsFor('h4', new Date());
      // Another controller taints the node after the relay saw it: the hint is stale.
      const other: V1Taint = { key: 'example.com/other-controller', value: 'y', effect: 'NoSchedule' };
      harness.sim.nodes.taint('h4', other);
      await countFromHere();
      const report = await reconcileNode(harness.deps, hintedMessage('h4', hints), reconcilePair);
      await harness.deps.memory.events.flush();
      expect(report.conflicts).toBe(1);
      expect(report.gatesLifted).toBe(1);
      expect(node('h4')?.spec?.taints).toEqual([other]);
      expect(condition('h4')?.status).toBe('True');
      expect(nodeEvents('h4', 'NodeReadinessGateLifted')).toHaveLength(1);
      // After the conflict the node and its pods are read again, and decided on together.
      expect(requestsMade()).toEqual([
        'create events',
        'get nodes',
        'list pods',
        'patch nodes',
        'patch nodes',
        'patch nodes/status',
      ]);
    });

    it("that predate this process's own gate write, decides on the node as written (no read)", async () => {
      const context = relayContext();
      await reconcileNode(
        harness.deps,
        hintedMessage('h5', context.nodeHintsFor('h5', new Date())),
        reconcilePair,
      );
      expect(taintKeys('h5')).toEqual([]);
      // The gating pod goes before the relay saw the release: its next hints still show the taint.
      const pod = podOn(cont, 'h5') as V1Pod;
      harness.sim.store.delete('pods', 'default', pod.metadata?.name ?? '', { gracePeriodSeconds: 0 });
      context.observe('pods', { type: 'DELETED', object: pod, resourceVersion: '0' });
      const stale = context.nodeHintsFor('h5', new Date());
      expect(stale?.node.taints?.map((t) => t.key)).toEqual([key]);
      await countFromHere();
      const report = await reconcileNode(harness.deps, hintedMessage('h5', stale), reconcilePair);
      await harness.deps.memory.events.flush();
      expect(report.gatesRestored).toBe(1);
      expect(taintKeys('h5')).toEqual([key]);
      expect(condition('h5')).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
      expect(requestsMade().filter((r) => r === 'get nodes')).toEqual([]);
    });
  });

  describe("a bootstrap release from the relay's hints, behind several gating DaemonSets", () => {
    let first: ReturnType<typeof createDaemonSet>;
    let last: ReturnType<typeof createDaemonSet>;

    /** `hints` as the relay sent them before `ds`'s pod on the node turned Ready. */
    function beforeReady(hints: NodeHints | undefined, ds: typeof boot): NodeHints | undefined {
      if (hints === undefined) return undefined;
      const uid = ds.metadata?.uid;
      const pods = hints.pods.map((pod) =>
        pod.controller?.uid !== uid
          ? pod
          : {
              ...pod,
              ready: false,
              conditions: pod.conditions?.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)),
            },
      );
      return { ...hints, pods };
    }

    // A node joined behind the default key, both its gating pods ready, no step run since.
    beforeAll(async () => {
      const gatingDuo = (name: string) =>
        createDaemonSet(
          harness,
          aDaemonSet(name, {
            annotations: { 'everynode.dev/node-readiness': 'BootstrapOnly' },
            nodeSelector: { gate: 'duo' },
          }),
        );
      first = gatingDuo('duo-first');
      last = gatingDuo('duo-last');
      await harness.send(daemonSetMessage(first), daemonSetMessage(last));
      await harness.quiet();
      harness.sim.nodes.add('j1', { labels: { gate: 'duo' }, taints: [gateTaint(DEFAULT_KEY)] });
      await nodeChanged('j1');
      await waitFor('both gating pods ready on j1', () =>
        [first, last].every((ds) => {
          const pod = podOn(ds, 'j1');
          return pod !== undefined && isReady(pod);
        }),
      );
      await harness.deps.memory.events.flush();
    });

    it('a gating pod ready before the last costs nothing; the last one costs the patch, then the condition, and the Event', async () => {
      expect(condition('j1')).toBeUndefined();
      const hints = relayContext().nodeHintsFor('j1', new Date());
      const writes: string[] = [];
      const kube = harness.deps.ports.kube;
      const recording: ReconcileDeps = {
        ...harness.deps,
        ports: {
          ...harness.deps.ports,
          kube: {
            ...kube,
            patchNodeGate: (...args) => {
              writes.push('patch nodes');
              return kube.patchNodeGate(...args);
            },
            patchNodeCondition: (...args) => {
              writes.push('patch nodes/status');
              return kube.patchNodeCondition(...args);
            },
          },
        },
      };

      // The first gating pod's readiness: the node still waits for the last one, which its taint shows.
      await countFromHere();
      const early = await reconcileNode(
        recording,
        hintedMessage('j1', beforeReady(hints, last)),
        reconcilePair,
      );
      await harness.deps.memory.events.flush();
      expect(early.gatesLifted).toBe(0);
      expect(requestsMade()).toEqual([]);
      expect(taintKeys('j1')).toEqual([DEFAULT_KEY]);
      expect(condition('j1')).toBeUndefined();

      // The last one's: released.
      await countFromHere();
      const release = await reconcileNode(recording, hintedMessage('j1', hints), reconcilePair);
      await harness.deps.memory.events.flush();
      expect(release.gatesLifted).toBe(1);
      expect(release.conflicts).toBe(0);
      expect(requestsMade()).toEqual(['create events', 'patch nodes', 'patch nodes/status']);
      expect(writes).toEqual(['patch nodes', 'patch nodes/status']);
      expect(taintKeys('j1')).toEqual([]);
      expect(
        Object.keys(JSON.parse(node('j1')?.metadata?.annotations?.[GATE_RELEASED_ANNOTATION] ?? '{}')),
      ).toEqual([DEFAULT_KEY]);
      expect(condition('j1')).toMatchObject({ status: 'True', reason: 'DaemonSetsReady' });
      expect(nodeEvents('j1', 'NodeReadinessGateLifted')).toHaveLength(1);

      // The relay's next hints of the node (its taint gone): nothing left to write.
      await countFromHere();
      await reconcileNode(
        recording,
        hintedMessage('j1', relayContext().nodeHintsFor('j1', new Date())),
        reconcilePair,
      );
      await harness.deps.memory.events.flush();
      expect(requestsMade()).toEqual([]);
    });
  });

  it("keeps another controller's taint added between its read and its write (409, read again, decide again)", async () => {
    harness.sim.nodes.add('r1', { taints: [gateTaint(DEFAULT_KEY)] });
    const other: V1Taint = { key: 'example.com/other-controller', value: 'x', effect: 'NoSchedule' };
    let raced = false;
    const kube = harness.deps.ports.kube;
    const racing: ReconcileDeps = {
      ...harness.deps,
      ports: {
        ...harness.deps.ports,
        kube: {
          ...kube,
          // A second writer changes the node just after this step read it.
          getNode: async (name, options) => {
            const read = await kube.getNode(name, options);
            if (name === 'r1' && !raced) {
              raced = true;
              harness.sim.nodes.taint('r1', other);
            }
            return read;
          },
        },
      },
    };
    const report = await reconcileNode(racing, nodeMessage('r1') as NodeMessage, reconcilePair);
    expect(raced).toBe(true);
    expect(report.conflicts).toBe(1);
    expect(report.gatesLifted).toBe(1);
    expect(node('r1')?.spec?.taints).toEqual([other]);
  });

  it('dry run: the verdict is reported once and no taint changes', async () => {
    const key = 'example.com/dry';
    const dry = createDaemonSet(
      harness,
      aDaemonSet('dry', {
        annotations: {
          'everynode.dev/node-readiness': 'BootstrapOnly',
          'everynode.dev/node-readiness-taint-key': key,
          'everynode.dev/node-readiness-dry-run': 'true',
        },
        nodeSelector: { gate: 'dry' },
      }),
    );
    await harness.send(daemonSetMessage(dry));
    await harness.quiet();
    harness.sim.nodes.add('d1', { labels: { gate: 'dry' }, taints: [gateTaint(key)] });
    await nodeChanged('d1');
    await readyOn(dry, 'd1');
    await nodeChanged('d1');
    expect(taintKeys('d1')).toEqual([key]);
    const events = nodeEvents('d1', 'NodeReadinessGateLifted');
    expect(events.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Would lift taint example\.com\/dry:NoSchedule \(dry run\)/),
    ]);
  });

  it('a gating pod that never becomes ready keeps the gate, and the timeout gives one Warning', async () => {
    const key = 'example.com/slow';
    const slow = createDaemonSet(
      harness,
      aDaemonSet('slow', {
        image: 'everynode.dev/sim:crashloop',
        annotations: {
          'everynode.dev/node-readiness': 'BootstrapOnly',
          'everynode.dev/node-readiness-taint-key': key,
          'everynode.dev/node-readiness-timeout-seconds': '1',
        },
        nodeSelector: { gate: 'slow' },
      }),
    );
    await harness.send(daemonSetMessage(slow));
    await harness.quiet();
    harness.sim.nodes.add('s1', { labels: { gate: 'slow' }, taints: [gateTaint(key)] });
    await nodeChanged('s1');
    // The step asked to look again when the timeout is due: no message of the test's brings it.
    await waitFor('timeout warning', () => nodeEvents('s1', 'NodeReadinessGateTimeout').length > 0, 10_000);
    await nodeChanged('s1');
    await nodeChanged('s1');
    const warnings = nodeEvents('s1', 'NodeReadinessGateTimeout');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.type).toBe('Warning');
    expect(warnings[0]?.message).toContain('default/slow');
    expect(taintKeys('s1')).toEqual([key]);
    expect(condition('s1')?.status).toBe('False');
  });
});
