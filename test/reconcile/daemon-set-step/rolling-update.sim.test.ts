/**
 * The rolling-update step of the DaemonSet step against the simulated cluster through the real
 * client, on views built as sync-daemon-set.ts builds them (nodeViewsFor over a LIST of nodes and
 * pods): after a template change it deletes at most maxUnavailable old pods, expecting each
 * replacement and showing the deleted pods terminating in `viewsAfter`; with maxSurge it creates
 * new pods beside old ones instead; the partition and a paused rollout hold the deletes back. A
 * delete that met a Conflict is tried again from a fresh read of its pair, within the plan's budget.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../../lib/core/daemon-pod.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import { PARTITION_ANNOTATION, PAUSED_ANNOTATION } from '../../../lib/core/extensions.ts';
import { IN_PLACE_ANNOTATION } from '../../../lib/core/in-place/in-place-setting.ts';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { rollingUpdate } from '../../../lib/reconcile/daemon-set-step/rolling-update.ts';
import { syncRevisionHistory } from '../../../lib/reconcile/daemon-set-step/sync-revision-history.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { pairKey } from '../../../lib/reconcile/memory/expectations.ts';
import { KEPT_PODS_BUDGET, KeptPodLists, keptPodsOf } from '../../../lib/reconcile/memory/kept-pod-lists.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode, type DaemonSetOptions } from '../../support/builders.ts';
import { withReady } from '../../support/pod-readiness.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  placementOf,
  podsOf,
  updateDaemonSet,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3'];
const GRACE_SECONDS = 5;

describe('rollingUpdate against the API server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
  });
  afterAll(async () => harness?.stop());

  /** Creates DaemonSet `name` and runs its steps until a Ready pod runs on every node; its uid. */
  async function converged(name: string, options: DaemonSetOptions = {}): Promise<string> {
    const podSpec = { terminationGracePeriodSeconds: GRACE_SECONDS };
    const ds = createDaemonSet(harness, aDaemonSet(name, { ...options, podSpec }));
    const uid = ds.metadata?.uid ?? '';
    await reconcileDaemonSet(harness.deps, daemonSetMessage(ds) as DaemonSetMessage, Date.now());
    const deadline = Date.now() + 20_000;
    while (placementOf(harness, uid).join() !== NODES.join() || !allReady(harness, uid)) {
      if (Date.now() > deadline) throw new Error(`${name} not running on every node`);
      await harness.invokeOnce(1);
    }
    return uid;
  }

  const newTemplate = (name: string) =>
    updateDaemonSet(harness, 'default', name, (ds) => {
      const container = ds.spec?.template.spec?.containers[0];
      if (container) container.image = 'busybox:1.37';
    });

  /**
   * One rolling-update step of `name` on fresh LISTs, the revisions written first as the step does;
   * each listed pod as `listedAs` makes it, and `meanwhile` run between the LISTs and the update (a
   * change the step does not see).
   */
  async function step(
    name: string,
    deps: ReconcileDeps = harness.deps,
    { meanwhile = (): void => undefined, listedAs = (pod: V1Pod) => pod } = {},
  ) {
    const kube = harness.deps.ports.kube;
    const ds = (await kube.getDaemonSet('default', name)) as DaemonSet;
    const [nodes, listed, revisions] = await Promise.all([
      kube.listNodes(),
      kube.listPods({ namespace: 'default', labelSelector: `app=${name}` }),
      kube.listControllerRevisions('default'),
    ]);
    const pods = listed.items.map(listedAs);
    const { currentHash } = await syncRevisionHistory(deps, ds, revisions.items, pods);
    const views = nodeViewsFor(ds, nodes.items, pods);
    // As written by the history sync: an in-place update reads the change between two of them.
    const written = await kube.listControllerRevisions('default');
    meanwhile();
    const now = deps.clock();
    const result = await rollingUpdate(deps, {
      ...{ ds, views, pods, currentHash, gateKeys: [], now },
      revisions: written.items,
    });
    return { ds, pods, views, currentHash, now, result };
  }

  /** The nodes of the DaemonSet's pods not being deleted, sorted (a node twice when it runs two). */
  const liveNodes = (uid: string) => placementOf(harness, uid);
  const deletesOf = (result: Awaited<ReturnType<typeof step>>['result']) =>
    result.actions.flatMap((a) => (a.type === 'delete' ? [a.node] : []));
  const podDeletes = () =>
    harness.sim.counters.total({ verb: 'delete', resource: 'pods', userAgent: RECONCILE_USER_AGENT });

  it('deletes one old pod (maxUnavailable 1), expects its replacement, and shows it terminating after', async () => {
    const uid = await converged('one-by-one');
    newTemplate('one-by-one');
    // A process keeping the DaemonSet's pod table: the delete shows in it until its event comes.
    const keptPods = new KeptPodLists(KEPT_PODS_BUDGET, 0);
    const deps: ReconcileDeps = { ...harness.deps, memory: { ...harness.deps.memory, keptPods } };
    const listed = podsOf(harness, uid);
    const table = {
      query: 'default/app=one-by-one',
      pods: new Map(listed.map((pod) => [pod.metadata?.uid ?? '', pod])),
      resourceVersion: '1',
      listedAt: Date.now(),
      deleting: new Map<string, Date>(),
    };
    keptPods.put(uid, table);

    const { views, now, result } = await step('one-by-one', deps);
    expect(deletesOf(result)).toEqual(['n1']);
    expect(result.executed.report.deleted).toBe(1);
    expect(liveNodes(uid)).toEqual(['n2', 'n3']);
    const expecting = (node: string) =>
      harness.deps.memory.expectations.replacementPending(pairKey(uid, node), now.getTime());
    expect(NODES.map(expecting)).toEqual([true, false, false]);

    const deleted = views[0]?.pods[0] as V1Pod;
    expect(
      keptPodsOf(table).find((pod) => pod.metadata?.uid === deleted.metadata?.uid)?.metadata,
    ).toMatchObject({
      deletionTimestamp: now,
    });
    const after = result.viewsAfter.map((view) => view.pods.map((pod) => pod.metadata?.deletionTimestamp));
    expect(after).toEqual([[new Date(now.getTime() + GRACE_SECONDS * 1000)], [undefined], [undefined]]);
    expect(result.viewsAfter[1]).toEqual(views[1]);
    // The step's own views are left as listed.
    expect(views[0]?.pods[0]?.metadata?.deletionTimestamp).toBeUndefined();

    // The next step, its replacement still missing, deletes nothing more.
    const deletes = podDeletes();
    const next = await step('one-by-one');
    expect(deletesOf(next.result)).toEqual([]);
    expect(podDeletes()).toBe(deletes);
    expect(liveNodes(uid)).toEqual(['n2', 'n3']);
  });

  it('with maxSurge creates a new pod beside an old one instead of deleting', async () => {
    const uid = await converged('surging', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    });
    newTemplate('surging');
    const { views, now, currentHash, result } = await step('surging');
    expect(result.actions.map((a) => [a.type, a.type === 'requeue' ? '' : a.node])).toEqual([
      ['create', 'n1'],
    ]);
    expect(result.executed.report).toMatchObject({ created: 1, deleted: 0 });
    expect(liveNodes(uid)).toEqual(['n1', 'n1', 'n2', 'n3']);
    const onN1 = podsOf(harness, uid).filter((pod) => targetNodeName(pod) === 'n1');
    expect(
      onN1.map((pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === currentHash).sort(),
    ).toEqual([false, true]);
    expect(result.viewsAfter).toEqual(views);
    expect(harness.deps.memory.expectations.replacementPending(pairKey(uid, 'n1'), now.getTime())).toBe(
      false,
    );
  });

  it('keeps `partition` nodes on the old revision whatever maxUnavailable allows', async () => {
    const uid = await converged('partitioned', {
      annotations: { [PARTITION_ANNOTATION]: '2' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
    });
    newTemplate('partitioned');
    const { result } = await step('partitioned');
    expect(deletesOf(result)).toEqual(['n1']);
    expect(liveNodes(uid)).toEqual(['n2', 'n3']);
  });

  it('deletes nothing while the rollout is paused', async () => {
    const uid = await converged('paused', {
      annotations: { [PAUSED_ANNOTATION]: 'true' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
    });
    newTemplate('paused');
    const versions = podsOf(harness, uid).map((pod) => pod.metadata?.resourceVersion);
    const deletes = podDeletes();
    const { result } = await step('paused');
    expect(result.actions).toEqual([]);
    expect(result.executed.report).toMatchObject({ created: 0, deleted: 0 });
    expect(podDeletes()).toBe(deletes);
    expect(podsOf(harness, uid).map((pod) => pod.metadata?.resourceVersion)).toEqual(versions);
    expect(liveNodes(uid)).toEqual(NODES);
  });

  it('updates the pods of one step in place at once, not one after another', async () => {
    const uid = await converged('in-place-at-once', {
      annotations: { [IN_PLACE_ANNOTATION]: 'IfPossible' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
    });
    const uids = podsOf(harness, uid).map((pod) => pod.metadata?.uid);
    newTemplate('in-place-at-once');
    // Each patch held 50 ms: one update after another would never have two in flight.
    let [inFlight, most] = [0, 0];
    const kube = harness.deps.ports.kube;
    const slowPatches: typeof kube = Object.create(kube);
    slowPatches.jsonPatchPod = async (...args) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return kube.jsonPatchPod(...args).finally(() => inFlight--);
    };
    const deps: ReconcileDeps = { ...harness.deps, ports: { ...harness.deps.ports, kube: slowPatches } };
    const deletes = podDeletes();
    const { result, currentHash } = await step('in-place-at-once', deps);
    expect(result.executed.report).toMatchObject({ updatedInPlace: 3, deleted: 0 });
    expect(most).toBe(3);
    expect(podDeletes()).toBe(deletes);
    const after = podsOf(harness, uid);
    expect(after.map((pod) => pod.metadata?.uid)).toEqual(uids);
    expect(after.map((pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL])).toEqual(
      NODES.map(() => currentHash),
    );
  });

  describe('deletes that met a Conflict (the pod changed between the LIST and the delete)', () => {
    const setReady = (uid: string, node: string, ready: boolean) => {
      const pod = podsOf(harness, uid).find((p) => targetNodeName(p) === node) as V1Pod;
      harness.sim.store.update('pods', withReady(pod, ready) as unknown as KubeObject, {
        subresource: 'status',
      });
    };
    const podReads = () =>
      harness.sim.counters.total({ verb: 'list', resource: 'pods', userAgent: RECONCILE_USER_AGENT });

    it('deletes a pod counted available that turned unready meanwhile by its uid alone: no Conflict, no second read', async () => {
      const uid = await converged('turned-unready', {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
      });
      newTemplate('turned-unready');
      const reads = podReads();
      const { result } = await step('turned-unready', harness.deps, {
        meanwhile: () => setReady(uid, 'n2', false),
      });
      expect(deletesOf(result)).toEqual(NODES);
      expect(result.executed.report).toMatchObject({ deleted: 3, conflicts: 0 });
      // The step's LIST only: the pod still spends the one slot the plan gave it.
      expect(podReads() - reads).toBe(1);
      expect(liveNodes(uid)).toEqual([]);
    });

    it('leaves a pod it counted as unavailable that is available again to the next step', async () => {
      const uid = await converged('ready-again', {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      });
      newTemplate('ready-again');
      // Listed unready at an older version (the simulated kubelet makes a running pod ready again at
      // once): its delete meets a Conflict, and the pod read again is available.
      const unreadyBefore = (pod: V1Pod) =>
        targetNodeName(pod) === 'n1'
          ? { ...withReady(pod, false), metadata: { ...pod.metadata, resourceVersion: '1' } }
          : pod;
      const { result } = await step('ready-again', harness.deps, { listedAs: unreadyBefore });
      // Planned: the unavailable old pod of n1 only (n2's or n3's would make two nodes unavailable).
      expect(deletesOf(result)).toEqual(['n1']);
      expect(result.executed.report).toMatchObject({ deleted: 0, conflicts: 1 });
      expect(liveNodes(uid)).toEqual(NODES);
    });
  });
});
