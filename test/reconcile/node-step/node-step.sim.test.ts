/**
 * The node step called directly (`reconcileNode`) over the simulated cluster through the real
 * client: the pods every managed DaemonSet ends up with on the node, what its StepReport counts,
 * the API requests it makes, and when it hands a pair to the pair step.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPodFor, targetNodeName } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import type { NodeMessage, PairMessage } from '../../../lib/messages/work-message.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { emptyReport, type StepReport } from '../../../lib/reconcile/effects/step-report.ts';
import { type PairStep, reconcileNode } from '../../../lib/reconcile/node-step/node-step.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetKey,
  isReady,
  nodeMessage,
  podsOf,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import {
  coldDeps,
  reconcileRequests,
  startStepHarness,
  writesAmong,
} from '../../support/reconcile-step-deps.ts';
import { relayContextOf } from '../../support/relay-context.ts';

describe('the node step', () => {
  let harness: Harness;
  let agent: V1DaemonSet;
  let ssd: V1DaemonSet;
  let nowhere: V1DaemonSet;

  const uid = (ds: V1DaemonSet) => ds.metadata?.uid ?? '';
  const message = (node: string) => nodeMessage(node) as NodeMessage;
  /** The live (non-terminating) pods of `ds` made for `node`. */
  const live = (ds: V1DaemonSet, node: string): V1Pod[] =>
    podsOf(harness, uid(ds)).filter(
      (pod) => targetNodeName(pod) === node && !pod.metadata?.deletionTimestamp,
    );
  /** Resolves once every pod of `daemonSets` on `node` is bound and Ready: the kubelet is done writing. */
  const settled = (node: string, ...daemonSets: V1DaemonSet[]) =>
    waitFor(`pods ready on ${node}`, () =>
      daemonSets.every((ds) => live(ds, node).some((pod) => pod.spec?.nodeName === node && isReady(pod))),
    );

  /** A pair step that records the pair messages it is handed and runs the real one. */
  function recordingPairStep(): { readonly step: PairStep; readonly calls: PairMessage[] } {
    const calls: PairMessage[] = [];
    return {
      calls,
      step: async (deps, pair) => {
        calls.push(pair);
        return reconcilePair(deps, pair);
      },
    };
  }

  /** Runs the node step; resolves to its report and the API requests it made. */
  async function run(
    deps: ReconcileDeps,
    work: NodeMessage,
    pairStep: PairStep = reconcilePair,
  ): Promise<{ report: StepReport; requests: Record<string, number> }> {
    harness.sim.counters.reset();
    const report = await reconcileNode(deps, work, pairStep);
    return { report, requests: reconcileRequests(harness.sim) };
  }

  beforeAll(async () => {
    harness = await startStepHarness();
    agent = createDaemonSet(harness, aDaemonSet('agent'));
    ssd = createDaemonSet(harness, aDaemonSet('ssd', { nodeSelector: { disk: 'ssd' } }));
    nowhere = createDaemonSet(harness, aDaemonSet('nowhere', { nodeSelector: { disk: 'none' } }));
  });
  afterAll(async () => harness?.stop());

  it('creates the missing pod of every DaemonSet that should run on the node, from one read of the node', async () => {
    harness.sim.nodes.add('j1', { labels: { disk: 'ssd' } });
    const pairStep = recordingPairStep();
    const deps = coldDeps(harness.deps);
    const { report, requests } = await run(deps, message('j1'), pairStep.step);
    expect(report).toEqual({ ...emptyReport(), created: 2 });
    expect(live(agent, 'j1')).toHaveLength(1);
    expect(live(ssd, 'j1')).toHaveLength(1);
    expect(live(nowhere, 'j1')).toEqual([]);
    // Unhinted: one LIST of DaemonSets, one GET of the node, one LIST of its pods, the revisions of
    // the one namespace (nothing cached), then the creates; nothing conflicted, no pair step.
    expect(requests).toEqual({
      [`list ${daemonSetKey(harness.managedKind)}`]: 1,
      'get nodes': 1,
      'list pods': 1,
      'list apps/controllerrevisions': 1,
      'create pods': 2,
    });
    expect(pairStep.calls).toEqual([]);

    // Again once the pods are bound: nothing to do, and the revision hashes are known by now.
    await settled('j1', agent, ssd);
    const again = await run(deps, message('j1'), pairStep.step);
    expect(again.report).toEqual(emptyReport());
    expect(again.requests).toEqual({
      [`list ${daemonSetKey(harness.managedKind)}`]: 1,
      'get nodes': 1,
      'list pods': 1,
    });
    expect(pairStep.calls).toEqual([]);
  });

  it('deletes the daemon pods of a node that is gone, the bound ones and those never bound', async () => {
    harness.sim.nodes.add('g1');
    await run(coldDeps(harness.deps), message('g1'));
    await settled('g1', agent);
    harness.sim.nodes.remove('g1');
    // Made for the node after it left (a stale plan): no node, so it is never bound.
    harness.sim.store.create('pods', daemonPodFor(ssd as DaemonSet, 'g1', 'old') as unknown as KubeObject);
    expect(live(ssd, 'g1').map((pod) => pod.spec?.nodeName)).toEqual([undefined]);
    const { report, requests } = await run(coldDeps(harness.deps), message('g1'));
    expect(report).toEqual({ ...emptyReport(), deleted: 2 });
    // The node gone: its bound pods, then the unbound ones made for it (a second LIST).
    expect(requests).toMatchObject({ 'get nodes': 1, 'list pods': 2 });
    expect(writesAmong(requests)).toEqual({ 'delete pods': 2 });
    expect(live(agent, 'g1')).toEqual([]);
    expect(live(ssd, 'g1')).toEqual([]);
  });

  it('hands a pair whose delete meets a Conflict to the pair step, which reads it afresh and deletes', async () => {
    harness.sim.nodes.add('c1', { labels: { disk: 'ssd' } });
    const deps = coldDeps(harness.deps);
    await run(deps, message('c1'));
    await settled('c1', agent, ssd);
    harness.sim.nodes.label('c1', { disk: null });
    // The relay's hints of the node as it is now: the ssd pod must go.
    const context = relayContextOf(harness);
    const hints = context.hintsFor(harness.sim.nodes.get('c1') as V1Node, new Date());
    expect(hints).toBeDefined();
    // The pod changes after the hints were taken: the delete's resourceVersion precondition fails.
    const [doomed] = live(ssd, 'c1');
    harness.sim.store.mutate('pods', 'default', doomed?.metadata?.name ?? '', (pod) => {
      pod.metadata.annotations = { ...pod.metadata.annotations, touched: 'yes' };
    });
    const pairStep = recordingPairStep();
    const work = { ...message('c1'), ...(hints ? { hints } : {}) };
    const { report, requests } = await run(deps, work, pairStep.step);
    expect(pairStep.calls).toEqual([
      {
        v: 1,
        kind: 'pair',
        cause: work.cause,
        daemonSet: { namespace: 'default', name: 'ssd', uid: uid(ssd) },
        node: { name: 'c1' },
      },
    ]);
    expect(report).toEqual({ ...emptyReport(), conflicts: 1, deleted: 1 });
    // The hinted delete (409), then the pair step's own.
    expect(writesAmong(requests)).toEqual({ 'delete pods': 2 });
    expect(live(ssd, 'c1')).toEqual([]);
    expect(live(agent, 'c1')).toHaveLength(1);
  });

  it('reads the node and its pods rather than plan from hints naming a pod whose labels were capped', async () => {
    harness.sim.nodes.add('k1');
    const deps = coldDeps(harness.deps);
    await run(deps, message('k1'));
    await settled('k1', agent);
    const hints = relayContextOf(harness).hintsFor(harness.sim.nodes.get('k1') as V1Node, new Date());
    if (hints === undefined) throw new Error('no hints for k1');
    // What a pod of thousands of labels is hinted as: without the labels, saying so.
    const capped = {
      ...hints,
      pods: hints.pods.map((pod) => ({ ...pod, labels: {}, capped: true as const })),
    };
    const { report, requests } = await run(deps, { ...message('k1'), hints: capped });
    expect(report).toEqual(emptyReport());
    expect(requests).toMatchObject({ 'get nodes': 1, 'list pods': 1 });
    expect(writesAmong(requests)).toEqual({});
    expect(live(agent, 'k1')).toHaveLength(1);
  });
});
