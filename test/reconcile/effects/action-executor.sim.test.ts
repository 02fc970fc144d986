/**
 * The one executor of plans (`executeActions`) over the simulated cluster through the real client:
 * the pods its creates and deletes leave, how it answers a name taken and a stale precondition,
 * the requeue it passes on, and that its StepReport and API requests match what it did.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Action, type DeleteAction, deletePodAction } from '../../../lib/core/action.ts';
import { isControlledBy } from '../../../lib/core/controller-ref.ts';
import { createPodAction } from '../../../lib/core/create-pod-action.ts';
import { daemonPodName, targetNodeName } from '../../../lib/core/daemon-pod.ts';
import { planRevisions } from '../../../lib/core/revision-history.ts';
import {
  type ExecutionOptions,
  executeActions,
  PodNameError,
} from '../../../lib/reconcile/effects/action-executor.ts';
import { emptyReport } from '../../../lib/reconcile/effects/step-report.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, isReady, podsOf, waitFor } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { coldDeps, reconcileRequests } from '../../support/reconcile-step-deps.ts';

describe('executeActions', () => {
  let harness: Harness;
  let ds: V1DaemonSet;
  let hash: string;

  const podNamed = (name: string) => harness.sim.store.get('pods', 'default', name) as V1Pod | undefined;
  /** The live (non-terminating) pods of the DaemonSet made for `node`. */
  const live = (node: string): V1Pod[] =>
    podsOf(harness, ds.metadata?.uid ?? '').filter(
      (pod) => targetNodeName(pod) === node && !pod.metadata?.deletionTimestamp,
    );
  const create = (node: string) => createPodAction(ds, node, hash, [], {}, 'test: daemon pod missing');

  /** Executes `actions` from a process just started; resolves to the result and the API requests made. */
  async function run(actions: readonly Action[], options: ExecutionOptions = {}) {
    harness.sim.counters.reset();
    const result = await executeActions(coldDeps(harness.deps), ds, actions, options);
    return { result, requests: reconcileRequests(harness.sim) };
  }

  /** A pod the DaemonSet does not control, named `name`, in the default namespace. */
  function foreignPod(name: string): void {
    harness.sim.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { app: 'someone-else' } },
      spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
    });
  }

  /** Creates the DaemonSet's pod for `node` and resolves to it once Ready (its resourceVersion settled). */
  async function settledPod(node: string): Promise<V1Pod> {
    await run([create(node)]);
    await waitFor(`pod on ${node} ready`, () => live(node).some(isReady));
    return live(node)[0] as V1Pod;
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1')], pollWork: false });
    ds = createDaemonSet(harness, aDaemonSet('exec'));
    hash = planRevisions(ds, [], []).currentHash;
  });
  afterAll(async () => harness?.stop());

  it('a create makes the pod under its deterministic name; made again, it is counted as already there', async () => {
    harness.sim.nodes.add('e1');
    const first = await run([create('e1')]);
    expect(first.result.report).toEqual({ ...emptyReport(), created: 1 });
    expect(first.result.conflict).toBe(false);
    expect(first.result.created).toHaveLength(1);
    expect(first.result).not.toHaveProperty('requeueAfterSeconds');
    expect(first.requests).toEqual({ 'create pods': 1 });
    const pod = podNamed(daemonPodName('exec', 'e1', hash));
    expect(pod && isControlledBy(pod, ds)).toBe(true);

    const again = await run([create('e1')]);
    expect(again.result.report).toEqual({ ...emptyReport(), alreadyExisted: 1 });
    expect(again.result.created).toEqual([]);
    expect(again.requests).toEqual({ 'create pods': 1 });
    expect(live('e1').map((p) => p.metadata?.uid)).toEqual([pod?.metadata?.uid]);
  });

  it('a name taken by a pod the DaemonSet does not control: taken as done unverified, the next name verified', async () => {
    harness.sim.nodes.add('e2');
    const taken = daemonPodName('exec', 'e2', hash);
    foreignPod(taken);
    // Unverified (the plan saw every pod of the pair's names), a 409 means another run made it.
    const unverified = await run([create('e2')]);
    expect(unverified.result.report).toEqual({ ...emptyReport(), alreadyExisted: 1 });
    expect(live('e2')).toEqual([]);
    // Verified: the pod of that name is read, found foreign, and the next attempt's name is used.
    const verified = await run([create('e2')], { verifyNameClashes: true });
    expect(verified.result.report).toEqual({ ...emptyReport(), created: 1 });
    expect(verified.requests).toEqual({ 'create pods': 2, 'list pods': 1 });
    expect(live('e2').map((p) => p.metadata?.name)).toEqual([daemonPodName('exec', 'e2', hash, 1)]);
    expect(podNamed(taken)?.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it('every name tried taken by pods of others: PodNameError, and no pod made', async () => {
    harness.sim.nodes.add('e3');
    for (let attempt = 0; attempt < 5; attempt++) foreignPod(daemonPodName('exec', 'e3', hash, attempt));
    harness.sim.counters.reset();
    await expect(
      executeActions(coldDeps(harness.deps), ds, [create('e3')], { verifyNameClashes: true }),
    ).rejects.toBeInstanceOf(PodNameError);
    expect(reconcileRequests(harness.sim)).toEqual({ 'create pods': 5, 'list pods': 5 });
    expect(live('e3')).toEqual([]);
  });

  it('a delete with a stale uid or resourceVersion is refused as a Conflict: the pod stays, no create follows', async () => {
    harness.sim.nodes.add('e4');
    harness.sim.nodes.add('e5');
    const pod = await settledPod('e4');
    const current = deletePodAction(pod, 'e4', 'test: excess pod');
    const stale: DeleteAction[] = [
      { ...current, uid: 'uid-of-an-earlier-pod', resourceVersion: '' },
      { ...current, resourceVersion: '1' },
    ];
    for (const action of stale) {
      const { result, requests } = await run([action, create('e5')]);
      expect(result.conflict).toBe(true);
      expect(result.report).toEqual({ ...emptyReport(), conflicts: 1 });
      expect(result.created).toEqual([]);
      expect(requests).toEqual({ 'delete pods': 1 });
      expect(live('e4').map((p) => p.metadata?.uid)).toEqual([pod.metadata?.uid]);
      expect(live('e5')).toEqual([]);
    }
  });

  it('a delete with current preconditions deletes once, even listed twice; once gone, it is counted as already gone', async () => {
    harness.sim.nodes.add('e6');
    const pod = await settledPod('e6');
    const action = deletePodAction(pod, 'e6', 'test: excess pod');
    const calls: string[] = [];
    const options: ExecutionOptions = {
      beforeDelete: (a) => calls.push(`before ${a.name}`),
      afterDelete: (a) => calls.push(`after ${a.name}`),
    };
    const first = await run([action, action], options);
    expect(first.result).toMatchObject({ conflict: false, report: { ...emptyReport(), deleted: 1 } });
    expect(first.requests).toEqual({ 'delete pods': 1 });
    expect(live('e6')).toEqual([]);
    const name = pod.metadata?.name ?? '';
    await waitFor('the pod gone', () => podNamed(name) === undefined);
    const again = await run([action], options);
    expect(again.result.report).toEqual({ ...emptyReport(), alreadyGone: 1 });
    expect(calls).toEqual([`before ${name}`, `after ${name}`, `before ${name}`, `after ${name}`]);
  });

  it('a plan of creates, deletes and requeues: counts as done, the earliest requeue handed back', async () => {
    for (const node of ['e7', 'e8', 'e9']) harness.sim.nodes.add(node);
    const doomed = await settledPod('e9');
    const gone = { ...deletePodAction(doomed, 'e9', 'test'), name: 'never-there', uid: 'uid-never-there' };
    const plan: Action[] = [
      { type: 'requeue', afterSeconds: 30, reason: 'test: later' },
      create('e7'),
      deletePodAction(doomed, 'e9', 'test: excess pod'),
      create('e8'),
      gone,
      { type: 'requeue', afterSeconds: 5, reason: 'test: sooner' },
    ];
    const { result, requests } = await run(plan);
    expect(result.report).toEqual({ ...emptyReport(), created: 2, deleted: 1, alreadyGone: 1 });
    expect(result.requeueAfterSeconds).toBe(5);
    expect(result.created).toHaveLength(2);
    expect(requests).toEqual({ 'create pods': 2, 'delete pods': 2 });
    expect(live('e7')).toHaveLength(1);
    expect(live('e8')).toHaveLength(1);
    expect(live('e9')).toEqual([]);

    // Requeues alone cost no request, and count nothing: the step that asked sends them.
    const waits = await run([{ type: 'requeue', afterSeconds: 12, reason: 'test: backoff' }]);
    expect(waits.result).toEqual({
      report: emptyReport(),
      conflict: false,
      created: [],
      requeueAfterSeconds: 12,
    });
    expect(waits.requests).toEqual({});
  });

  it('a create in a namespace that is gone is counted as such, and not thrown', async () => {
    const elsewhere = aDaemonSet('exec', { namespace: 'vanished', uid: 'uid-ds-vanished' });
    harness.sim.counters.reset();
    const action = createPodAction(elsewhere, 'n1', hash, [], {}, 'test');
    const result = await executeActions(coldDeps(harness.deps), elsewhere, [action]);
    expect(result.report).toEqual({ ...emptyReport(), namespaceGone: 1 });
    expect(result.created).toEqual([]);
    expect(reconcileRequests(harness.sim)).toEqual({ 'create pods': 1 });
  });
});
