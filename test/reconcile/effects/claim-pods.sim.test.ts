/**
 * Adoption and release of pods by the DaemonSet step, against the simulated cluster through the
 * real client: an orphan matching the selector is adopted (controller reference and uid label
 * patched), a controlled pod that no longer matches is released, a pod of another controller is
 * never touched, and an orphan that changed since it was listed is adopted on a second try — or, when
 * another controller took it meanwhile, left alone with its node blocked for this run.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerOf, controllerRefFor } from '../../../lib/core/controller-ref.ts';
import { NODE_LABEL, nodeLabelValue } from '../../../lib/core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import { claimPods } from '../../../lib/reconcile/effects/claim-pods.ts';
import { RECONCILE_USER_AGENT } from '../../../lib/reconcile/setup/deps-for-config.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode, aPod, type PodOptions } from '../../support/builders.ts';
import { createDaemonSet, isReady, waitFor } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { stripServerFields } from '../../support/runtime-harness.ts';

describe('claimPods against the API server', () => {
  let harness: Harness;
  let ds: DaemonSet;
  let rival: DaemonSet;
  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: ['n1', 'n2', 'n3'].map((n) => aNode(n)),
      pollWork: false,
    });
    ds = createDaemonSet(harness, aDaemonSet('claimer'));
    // Another DaemonSet selecting the same pods: its pods are never the claimer's.
    rival = createDaemonSet(harness, { ...aDaemonSet('rival'), spec: aDaemonSet('claimer').spec });
  });
  afterAll(async () => harness?.stop());

  const uid = () => ds.metadata?.uid ?? '';
  const stored = (name: string) => harness.sim.store.get('pods', 'default', name) as unknown as V1Pod;
  /** Creates the pod and resolves once the kubelet made it Ready (its status writes stop). */
  const running = async (name: string, options: PodOptions) => {
    harness.sim.store.create('pods', stripServerFields(aPod(name, options)));
    await waitFor(`${name} ready`, () => isReady(stored(name)));
  };
  /** The pods a DaemonSet step reads for the claimer: matching its selector, or labelled with its uid. */
  const listed = async () => {
    const kube = harness.deps.ports.kube;
    const matching = await kube.listPods({ namespace: 'default', labelSelector: 'app=claimer' });
    const own = await kube.listPods({
      namespace: 'default',
      labelSelector: `${DAEMONSET_UID_LABEL}=${uid()}`,
    });
    const byUid = new Map([...matching.items, ...own.items].map((pod) => [pod.metadata?.uid, pod]));
    return [...byUid.values()];
  };
  const only = (pods: readonly V1Pod[], name: string) => pods.filter((pod) => pod.metadata?.name === name);
  const patches = () =>
    harness.sim.counters.total({ verb: 'patch', resource: 'pods', userAgent: RECONCILE_USER_AGENT });

  it('adopts an orphan matching the selector: controller reference, uid and node labels', async () => {
    await running('orphan', { nodeName: 'n1', labels: { app: 'claimer' } });
    const result = await claimPods(harness.deps, ds, only(await listed(), 'orphan'));
    expect(result.report).toMatchObject({ adopted: 1, released: 0 });
    expect(result.blocked.size).toBe(0);
    expect(result.claimed.map((pod) => pod.metadata?.name)).toEqual(['orphan']);
    const pod = stored('orphan');
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: 'claimer',
        uid: uid(),
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(pod.metadata?.labels).toEqual({
      app: 'claimer',
      [DAEMONSET_UID_LABEL]: uid(),
      [NODE_LABEL]: nodeLabelValue('n1'),
    });
    // The claimed copy is the pod as patched.
    expect(result.claimed[0]?.metadata?.resourceVersion).toBe(pod.metadata?.resourceVersion);
  });

  it('releases a pod it controls that no longer matches its selector, and claims those that do without a write', async () => {
    await running('relabelled', {
      nodeName: 'n2',
      owner: ds,
      labels: { app: 'other', [DAEMONSET_UID_LABEL]: uid() },
    });
    await running('kept', { nodeName: 'n3', owner: ds, labels: { [DAEMONSET_UID_LABEL]: uid() } });
    const before = patches();
    const pods = [...only(await listed(), 'relabelled'), ...only(await listed(), 'kept')];
    const result = await claimPods(harness.deps, ds, pods);
    expect(result.report).toMatchObject({ adopted: 0, released: 1 });
    expect(result.claimed.map((pod) => pod.metadata?.name)).toEqual(['kept']);
    expect(patches() - before).toBe(1);
    const released = stored('relabelled');
    expect(controllerOf(released)).toBeUndefined();
    expect(released.metadata?.ownerReferences ?? []).toEqual([]);
    expect(released.metadata?.labels).toEqual({ app: 'other' });
    expect(controllerOf(stored('kept'))?.uid).toBe(uid());
  });

  it('leaves a matching pod of another controller alone', async () => {
    await running('theirs', { nodeName: 'n1', owner: rival, labels: { app: 'claimer' } });
    const version = stored('theirs').metadata?.resourceVersion;
    const before = patches();
    const result = await claimPods(harness.deps, ds, only(await listed(), 'theirs'));
    expect(result.report).toMatchObject({ adopted: 0, released: 0 });
    expect(result.claimed).toEqual([]);
    expect(result.blocked.size).toBe(0);
    expect(patches()).toBe(before);
    expect(stored('theirs').metadata?.resourceVersion).toBe(version);
    expect(controllerOf(stored('theirs'))?.uid).toBe(rival.metadata?.uid);
  });

  it('adopts an orphan that changed since it was listed after reading it again', async () => {
    await running('moving', { nodeName: 'n2', labels: { app: 'claimer' } });
    const [pod] = only(await listed(), 'moving') as [V1Pod];
    const now = stored('moving');
    harness.sim.store.update('pods', {
      ...now,
      metadata: { ...now.metadata, annotations: { touched: 'yes' } },
    } as unknown as KubeObject);
    const before = patches();
    const result = await claimPods(harness.deps, ds, [pod]);
    expect(result.report.adopted).toBe(1);
    expect(patches() - before).toBe(2);
    expect(controllerOf(stored('moving'))?.uid).toBe(uid());
    // The change made meanwhile is kept: the patch was made on the pod as read again.
    expect(stored('moving').metadata?.annotations).toEqual({ touched: 'yes' });
  });

  it('leaves an orphan another controller took since it was listed, and blocks its node for this run', async () => {
    await running('taken', { nodeName: 'n3', labels: { app: 'claimer' } });
    const [pod] = only(await listed(), 'taken') as [V1Pod];
    const now = stored('taken');
    harness.sim.store.update('pods', {
      ...now,
      metadata: { ...now.metadata, ownerReferences: [controllerRefFor(rival)] },
    } as unknown as KubeObject);
    const result = await claimPods(harness.deps, ds, [pod]);
    expect(result.report.adopted).toBe(0);
    expect(result.claimed).toEqual([]);
    expect([...result.blocked]).toEqual(['n3']);
    expect(controllerOf(stored('taken'))?.uid).toBe(rival.metadata?.uid);
  });
});
