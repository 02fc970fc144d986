/**
 * The pair step called directly (`reconcilePair`) over the simulated cluster through the real
 * client: the pods it leaves on the pair, what its StepReport counts, the requeues it asks for and
 * the API requests it makes, read or hinted.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPodFor, daemonPodName, NODE_LABEL, targetNodeName } from '../../../lib/core/daemon-pod.ts';
import { CONTROLLER_REVISION_HASH_LABEL, DAEMONSET_UID_LABEL } from '../../../lib/core/daemon-set.ts';
import { planRevisions } from '../../../lib/core/revision-history.ts';
import { nodeHintOf, podHintOf } from '../../../lib/messages/pair-hints.ts';
import type { PairMessage } from '../../../lib/messages/work-message.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { emptyReport } from '../../../lib/reconcile/effects/step-report.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import { HINT_MAX_AGE_SECONDS } from '../../../lib/reconcile/reads/pair-reader.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetKey,
  isReady,
  pairMessage,
  podsOf,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import {
  coldDeps,
  reconcileRequests,
  recordingRequeue,
  startStepHarness,
  writesAmong,
} from '../../support/reconcile-step-deps.ts';

describe('the pair step', () => {
  let harness: Harness;
  let agent: V1DaemonSet;
  let ssd: V1DaemonSet;

  const uid = (ds: V1DaemonSet) => ds.metadata?.uid ?? '';
  const pair = (ds: V1DaemonSet, node: string) => pairMessage(ds, node) as PairMessage;
  /** The live (non-terminating) pods of `ds` made for `node`. */
  const live = (ds: V1DaemonSet, node: string): V1Pod[] =>
    podsOf(harness, uid(ds)).filter(
      (pod) => targetNodeName(pod) === node && !pod.metadata?.deletionTimestamp,
    );
  /** Resolves once `ds`'s pod on `node` is bound and Ready: the kubelet is done writing its status. */
  const settled = (ds: V1DaemonSet, node: string) =>
    waitFor(`${ds.metadata?.name} ready on ${node}`, () =>
      live(ds, node).some((pod) => pod.spec?.nodeName === node && isReady(pod)),
    );

  /** Runs the pair step for `message`; resolves to its report and the API requests it made. */
  async function run(deps: ReconcileDeps, message: PairMessage) {
    harness.sim.counters.reset();
    const report = await reconcilePair(deps, message);
    return { report, requests: reconcileRequests(harness.sim) };
  }

  beforeAll(async () => {
    harness = await startStepHarness();
    agent = createDaemonSet(harness, aDaemonSet('agent'));
    ssd = createDaemonSet(harness, aDaemonSet('ssd', { nodeSelector: { disk: 'ssd' } }));
  });
  afterAll(async () => harness?.stop());

  it("creates the daemon pod of an eligible node, named, labelled and owned as the DaemonSet's", async () => {
    harness.sim.nodes.add('p-create');
    const { report, requests } = await run(coldDeps(harness.deps), pair(agent, 'p-create'));
    expect(report).toEqual({ ...emptyReport(), created: 1 });
    const [pod, ...more] = live(agent, 'p-create');
    expect(more).toEqual([]);
    const hash = planRevisions(agent, [], []).currentHash;
    expect(pod?.metadata?.name).toBe(daemonPodName('agent', 'p-create', hash));
    expect(pod?.metadata?.labels).toMatchObject({
      app: 'agent',
      [CONTROLLER_REVISION_HASH_LABEL]: hash,
      [DAEMONSET_UID_LABEL]: uid(agent),
      [NODE_LABEL]: 'p-create',
    });
    expect(pod?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'DaemonSet', name: 'agent', uid: uid(agent), controller: true }),
    ]);
    // A process with nothing cached: the DaemonSet, the node, the pair's pods and the revisions, then the create.
    expect(requests).toEqual({
      'get apps/daemonsets': 1,
      'get nodes': 1,
      'list pods': 1,
      'list apps/controllerrevisions': 1,
      'create pods': 1,
    });
  });

  it('creates nothing on a node the taints or the nodeSelector exclude', async () => {
    harness.sim.nodes.add('p-tainted', { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] });
    harness.sim.nodes.add('p-plain');
    const deps = coldDeps(harness.deps);
    for (const [ds, node] of [
      [agent, 'p-tainted'],
      [ssd, 'p-plain'],
    ] as const) {
      const { report, requests } = await run(deps, pair(ds, node));
      expect(report).toEqual(emptyReport());
      expect(writesAmong(requests)).toEqual({});
      expect(live(ds, node)).toEqual([]);
    }
  });

  it('deletes the pod of a node that no longer matches the nodeSelector', async () => {
    harness.sim.nodes.add('p-relabel', { labels: { disk: 'ssd' } });
    await run(coldDeps(harness.deps), pair(ssd, 'p-relabel'));
    await settled(ssd, 'p-relabel');
    harness.sim.nodes.label('p-relabel', { disk: null });
    // A process that has not read the node since it changed (a recent read stands in for a GET).
    const { report, requests } = await run(coldDeps(harness.deps), pair(ssd, 'p-relabel'));
    expect(report).toEqual({ ...emptyReport(), deleted: 1 });
    expect(writesAmong(requests)).toEqual({ 'delete pods': 1 });
    expect(live(ssd, 'p-relabel')).toEqual([]);
  });

  it("writes nothing on a pair already right; warm, it lists only the pair's pods", async () => {
    harness.sim.nodes.add('p-again');
    const deps = coldDeps(harness.deps);
    await run(deps, pair(agent, 'p-again'));
    const made = live(agent, 'p-again').map((pod) => pod.metadata?.uid);
    expect(made).toHaveLength(1);
    const warm = await run(deps, pair(agent, 'p-again'));
    expect(warm.report).toEqual(emptyReport());
    expect(warm.requests).toEqual({ 'list pods': 1 });
    const cold = await run(coldDeps(harness.deps), pair(agent, 'p-again'));
    expect(cold.report).toEqual(emptyReport());
    expect(writesAmong(cold.requests)).toEqual({});
    expect(live(agent, 'p-again').map((pod) => pod.metadata?.uid)).toEqual(made);
  });

  it('does nothing for a DaemonSet that is gone, re-created under another uid, or being deleted', async () => {
    const key = daemonSetKey(harness.managedKind);
    const gone = createDaemonSet(harness, aDaemonSet('gone'));
    harness.sim.store.delete(key, 'default', 'gone');
    const before = createDaemonSet(harness, aDaemonSet('phoenix'));
    harness.sim.store.delete(key, 'default', 'phoenix');
    const after = createDaemonSet(harness, aDaemonSet('phoenix'));
    const held = aDaemonSet('held');
    const dying = createDaemonSet(harness, {
      ...held,
      metadata: { ...held.metadata, finalizers: ['example.com/hold'] },
    });
    harness.sim.store.delete(key, 'default', 'held');
    const deps = coldDeps(harness.deps);
    for (const ds of [gone, before, dying]) {
      const { report, requests } = await run(deps, pair(ds, 'n1'));
      expect(report).toEqual(emptyReport());
      expect(requests).toEqual({ 'get apps/daemonsets': 1 });
      // Known to be gone: a later pair of it costs no request at all.
      expect((await run(deps, pair(ds, 'n1'))).requests).toEqual({});
    }
    for (const ds of [gone, before, after, dying]) expect(podsOf(harness, uid(ds))).toEqual([]);
  });

  it('deletes the pods of a node that is gone: the bound one and one made for a node that never was', async () => {
    harness.sim.nodes.add('p-gone');
    await run(coldDeps(harness.deps), pair(agent, 'p-gone'));
    await settled(agent, 'p-gone');
    harness.sim.nodes.remove('p-gone');
    harness.sim.store.create('pods', daemonPodFor(agent, 'p-never', 'old') as unknown as KubeObject);
    expect(live(agent, 'p-never')).toHaveLength(1);
    for (const node of ['p-gone', 'p-never']) {
      const { report, requests } = await run(coldDeps(harness.deps), pair(agent, node));
      expect(report).toEqual({ ...emptyReport(), deleted: 1 });
      expect(writesAmong(requests)).toEqual({ 'delete pods': 1 });
      expect(live(agent, node)).toEqual([]);
    }
  });

  it('waits for a terminating pod: no replacement, one requeue of the pair for the end of its grace period', async () => {
    const slow = createDaemonSet(
      harness,
      aDaemonSet('slow', {
        image: 'everynode.dev/sim:ignore-sigterm',
        podSpec: { terminationGracePeriodSeconds: 1500 },
      }),
    );
    harness.sim.nodes.add('p-slow');
    await run(coldDeps(harness.deps), pair(slow, 'p-slow'));
    await settled(slow, 'p-slow');
    const [pod] = live(slow, 'p-slow');
    harness.sim.store.delete('pods', 'default', pod?.metadata?.name ?? '');
    const recorder = recordingRequeue();
    const deps = coldDeps(harness.deps, { requeue: recorder.requeue });
    const { report, requests } = await run(deps, pair(slow, 'p-slow'));
    expect(report).toEqual({ ...emptyReport(), requeues: 1 });
    expect(writesAmong(requests)).toEqual({});
    expect(live(slow, 'p-slow')).toEqual([]);
    expect(recorder.sent).toHaveLength(1);
    const [requeued] = recorder.sent;
    expect(requeued?.message).toMatchObject({
      kind: 'pair',
      daemonSet: { uid: uid(slow) },
      node: { name: 'p-slow' },
      cause: { type: 'requeue' },
    });
    // Until the deletionTimestamp (now + 1500 s), plus a second of slack.
    expect(requeued?.afterSeconds).toBeGreaterThan(1400);
    expect(requeued?.afterSeconds).toBeLessThanOrEqual(1501);
  });

  describe('with hints', () => {
    /** The pair message a DaemonSet step fans out for `node`: the node and its pods as it listed them. */
    function hinted(node: string, observedAt = new Date(), labels: Record<string, string> = {}): PairMessage {
      const hint = nodeHintOf(harness.sim.nodes.get(node) ?? aNode(node));
      return {
        ...pair(ssd, node),
        hints: {
          observedAt: observedAt.toISOString(),
          daemonSet: {
            resourceVersion: ssd.metadata?.resourceVersion ?? '',
            generation: ssd.metadata?.generation ?? 1,
            revisionHash: planRevisions(ssd, [], []).currentHash,
          },
          node: { ...hint, labels: { ...hint.labels, ...labels } },
          pods: [],
        },
      };
    }

    it('plans from the hints: no read of the node or pods, the DaemonSet read once for every pair', async () => {
      harness.sim.nodes.add('h-1', { labels: { disk: 'ssd' } });
      harness.sim.nodes.add('h-2', { labels: { disk: 'ssd' } });
      const deps = coldDeps(harness.deps);
      const first = await run(deps, hinted('h-1'));
      expect(first.report).toEqual({ ...emptyReport(), created: 1, hinted: 1 });
      expect(first.requests).toEqual({ 'get apps/daemonsets': 1, 'create pods': 1 });
      const second = await run(deps, hinted('h-2'));
      expect(second.report).toEqual({ ...emptyReport(), created: 1, hinted: 1 });
      expect(second.requests).toEqual({ 'create pods': 1 });
      expect(live(ssd, 'h-1')).toHaveLength(1);
      expect(live(ssd, 'h-2')).toHaveLength(1);
    });

    it("reads the pair's pods instead of a pod hint whose labels were capped", async () => {
      harness.sim.nodes.add('h-capped', { labels: { disk: 'ssd' } });
      const deps = coldDeps(harness.deps);
      await run(deps, hinted('h-capped'));
      await settled(ssd, 'h-capped');
      const [pod] = live(ssd, 'h-capped');
      if (pod === undefined) throw new Error('no pod on h-capped');
      // What a pod of thousands of labels is hinted as: without the labels, saying so.
      const capped = { ...podHintOf(pod), labels: {}, capped: true as const };
      const message = hinted('h-capped');
      const { report, requests } = await run(deps, {
        ...message,
        hints: { ...(message.hints as NonNullable<PairMessage['hints']>), pods: [capped] },
      });
      expect(requests).toMatchObject({ 'list pods': 1 });
      expect(writesAmong(requests)).toEqual({});
      expect(report.hinted).toBe(1);
      expect(live(ssd, 'h-capped').map((p) => p.metadata?.uid)).toEqual([pod.metadata?.uid]);
    });

    it('reads the pair instead of hints older than the limit, and plans from what it read', async () => {
      harness.sim.nodes.add('h-old');
      // The old hint says the node is an ssd node, which it is not.
      const observedAt = new Date(Date.now() - (HINT_MAX_AGE_SECONDS + 5) * 1000);
      const { report, requests } = await run(
        coldDeps(harness.deps),
        hinted('h-old', observedAt, { disk: 'ssd' }),
      );
      expect(report).toEqual(emptyReport());
      expect(requests).toMatchObject({ 'get nodes': 1, 'list pods': 1 });
      expect(writesAmong(requests)).toEqual({});
      expect(live(ssd, 'h-old')).toEqual([]);
    });
  });
});
