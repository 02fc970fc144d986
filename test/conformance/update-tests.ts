/**
 * Upstream's DaemonSet tests of template updates (test/e2e/apps/daemon_set.go): RollingUpdate
 * replaces the pods, OnDelete does not, and a rollback mid-rollout keeps the pods never updated.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../lib/core/daemon-set.ts';
import {
  curHistory,
  daemonPodsImageAndAvailability,
  expectDaemonSetPodsLabels,
} from './daemon-set-checks.ts';
import {
  AGNHOST_IMAGE,
  checkRunningOnAllNodes,
  createDaemonSet,
  DS_LABEL,
  DS_NAME,
  getDaemonSet,
  getDaemonSetImagePatch,
  getReadySchedulableNodes,
  listDaemonHistories,
  listDaemonPods,
  newDaemonSet,
  nodesAndPods,
  patchDaemonSet,
  updateDaemonSetWithRetries,
  WEBSERVER_IMAGE,
  waitForHistoryCreated,
} from './daemon-set-e2e.ts';
import { DS_RETRY_TIMEOUT_MS, type Framework, IT_TIMEOUT_MS, poll, TIME_SCALE } from './e2e-framework.ts';

/** upstream checkDaemonPodsImageAndAvailability as a condition for poll. */
function checkDaemonPodsImageAndAvailability(
  f: Framework,
  ds: V1DaemonSet,
  image: string,
  maxUnavailable: number,
) {
  return async (): Promise<true | string> => {
    const { nodes, pods } = await nodesAndPods(f);
    return daemonPodsImageAndAvailability(pods, ds, nodes, image, maxUnavailable, new Date());
  };
}

/**
 * Creates a DaemonSet of `updateStrategy`, waits until it runs on every node it should, and checks
 * its history (one revision, number 1) and its pods' hash labels; resolves with the DaemonSet as
 * read back and the hash of its first revision.
 */
async function createAndCheckHistory(
  f: Framework,
  updateStrategy: NonNullable<V1DaemonSet['spec']>['updateStrategy'],
): Promise<{ ds: V1DaemonSet; hash: string }> {
  const template = newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL);
  if (template.spec) template.spec.updateStrategy = updateStrategy;
  const created = await createDaemonSet(f, template);
  await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, created));

  // Check history and labels.
  const ds = await getDaemonSet(f, DS_NAME);
  await waitForHistoryCreated(f, DS_LABEL, 1);
  const first = curHistory(await listDaemonHistories(f, DS_LABEL), ds);
  const hash = first.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  expect(first.revision).toBe(1);
  expectDaemonSetPodsLabels(await listDaemonPods(f, DS_LABEL), hash);
  return { ds, hash };
}

/** Registers these tests of the `[sig-apps] Daemon set [Serial]` block, run against `f`. */
export function updateTests(f: Framework): void {
  it(
    'should update pod when spec was updated and update strategy is RollingUpdate [Conformance]',
    async () => {
      const { ds } = await createAndCheckHistory(f, { type: 'RollingUpdate' });

      // Update daemon pods image.
      const container = ds.spec?.template.spec?.containers[0]?.name ?? '';
      const patched = await patchDaemonSet(f, DS_NAME, getDaemonSetImagePatch(container, AGNHOST_IMAGE));

      // Time to complete the rolling upgrade is proportional to the number of nodes in the cluster.
      const nodeCount = (await nodesAndPods(f)).nodes.length;
      const retryTimeout = DS_RETRY_TIMEOUT_MS + nodeCount * 30_000 * TIME_SCALE;

      // Check that daemon pods images are updated.
      await poll(
        'until the daemon pods run the new image',
        checkDaemonPodsImageAndAvailability(f, patched, AGNHOST_IMAGE, 1),
        retryTimeout,
      );

      // Check that daemon pods are still running on every node of the cluster.
      await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, patched));

      // Check history and labels.
      const current = await getDaemonSet(f, DS_NAME);
      await waitForHistoryCreated(f, DS_LABEL, 2);
      const cur = curHistory(await listDaemonHistories(f, DS_LABEL), current);
      expect(cur.revision).toBe(2);
      expectDaemonSetPodsLabels(
        await listDaemonPods(f, DS_LABEL),
        cur.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '',
      );
    },
    IT_TIMEOUT_MS,
  );

  it(
    'should rollback without unnecessary restarts [Conformance]',
    async () => {
      const schedulable = await getReadySchedulableNodes(f);
      expect(
        schedulable.length,
        'Conformance test suite needs a cluster with at least 2 nodes.',
      ).toBeGreaterThan(1);
      // Create a RollingUpdate DaemonSet.
      const template = newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL);
      if (template.spec) template.spec.updateStrategy = { type: 'RollingUpdate' };
      const ds = await createDaemonSet(f, template);
      await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, ds));

      // Update the DaemonSet to trigger a rollout. Upstream uses a nonexistent image so that the
      // rollout cannot finish; the simulated kubelet pulls nothing, so the image that stands for it
      // is one whose container never becomes ready (lib/sim/kubelet/kubelet-image-markers.ts).
      const newImage = 'everynode.dev/sim:unready-foo-non-existent';
      const setImage = (image: string) => (update: V1DaemonSet) => {
        const first = update.spec?.template.spec?.containers[0];
        if (first) first.image = image;
      };
      const newDS = await updateDaemonSetWithRetries(f, DS_NAME, setImage(newImage));

      // Make sure we're in the middle of a rollout.
      await poll('until a pod of the new image exists', async () => {
        const pods = await listDaemonPods(f, DS_LABEL);
        return (
          pods.some((pod) => pod.spec?.containers[0]?.image === newImage) || 'no pod of the new image yet'
        );
      });
      const existingPods: V1Pod[] = [];
      const newPods: V1Pod[] = [];
      for (const pod of await listDaemonPods(f, DS_LABEL)) {
        const image = pod.spec?.containers[0]?.image;
        if (image === ds.spec?.template.spec?.containers[0]?.image) existingPods.push(pod);
        else if (image === newDS.spec?.template.spec?.containers[0]?.image) newPods.push(pod);
        else expect.fail(`unexpected pod found, image = ${image}`);
      }
      if ((await getReadySchedulableNodes(f)).length < 2) expect(existingPods).toHaveLength(0);
      else expect(existingPods).not.toHaveLength(0);
      expect(newPods).not.toHaveLength(0);

      // Roll back the DaemonSet before rollout is complete.
      const rollbackDS = await updateDaemonSetWithRetries(f, DS_NAME, setImage(WEBSERVER_IMAGE));

      // Make sure DaemonSet rollback is complete.
      await poll(
        'until the rollback is complete',
        checkDaemonPodsImageAndAvailability(f, rollbackDS, WEBSERVER_IMAGE, 1),
      );

      // After rollback is done, compare current pods with previous old pods during rollout, to
      // make sure they're not restarted. Upstream compares names, which its controller never
      // reuses; everynode's are deterministic (a pod recreated at the same revision gets the same
      // name), so the uids are compared too.
      const after = await listDaemonPods(f, DS_LABEL);
      const rollbackPods = new Map(after.map((pod) => [pod.metadata?.name, pod.metadata?.uid]));
      for (const pod of existingPods) {
        const name = pod.metadata?.name;
        expect(rollbackPods.has(name), `unexpected pod ${name} be restarted`).toBe(true);
        expect(rollbackPods.get(name), `unexpected pod ${name} be restarted`).toBe(pod.metadata?.uid);
      }
    },
    IT_TIMEOUT_MS,
  );
  it(
    'should not update pod when spec was updated and update strategy is OnDelete',
    async () => {
      const { ds, hash: firstHash } = await createAndCheckHistory(f, { type: 'OnDelete' });

      // Update daemon pods image.
      const container = ds.spec?.template.spec?.containers[0]?.name ?? '';
      const patched = await patchDaemonSet(f, DS_NAME, getDaemonSetImagePatch(container, AGNHOST_IMAGE));

      // Check that daemon pods images aren't updated.
      await poll(
        'until the daemon pods keep their image',
        checkDaemonPodsImageAndAvailability(f, patched, WEBSERVER_IMAGE, 0),
      );

      // Check that daemon pods are still running on every node of the cluster.
      await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, patched));

      // Check history and labels.
      const current = await getDaemonSet(f, DS_NAME);
      await waitForHistoryCreated(f, DS_LABEL, 2);
      const cur = curHistory(await listDaemonHistories(f, DS_LABEL), current);
      expect(cur.revision).toBe(2);
      expect(cur.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]).not.toBe(firstHash);
      expectDaemonSetPodsLabels(await listDaemonPods(f, DS_LABEL), firstHash);
    },
    IT_TIMEOUT_MS,
  );
}
