/**
 * Upstream's DaemonSet surge test (test/e2e/apps/daemon_set.go): a RollingUpdate with maxSurge
 * 20% and maxUnavailable 0 starts each node's new pod before it deletes the old one, and keeps its
 * invariants on every look while the test deletes pods at random.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../lib/core/daemon-set.ts';
import { curHistory, expectDaemonSetPodsLabels, schedulableNodes } from './daemon-set-checks.ts';
import {
  checkRunningOnAllNodes,
  createDaemonSet,
  DS_LABEL,
  DS_NAME,
  getDaemonSet,
  listDaemonHistories,
  listDaemonPods,
  newDaemonSet,
  nodesAndPods,
  patchDaemonSet,
  templateSpecOf,
  WEBSERVER_IMAGE,
  waitForHistoryCreated,
} from './daemon-set-e2e.ts';
import { DS_RETRY_TIMEOUT_MS, type Framework, IT_TIMEOUT_MS, poll, TIME_SCALE } from './e2e-framework.ts';
import { lookAtSurge, type SurgeMemory, type SurgeRollout, surgeDone } from './surge-invariants.ts';

/** A repeatable stand-in for upstream's math/rand: mulberry32 from a fixed seed, values in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * upstream's failure injection, on one look in 25 each: 0 makes a random old pod unready through
 * `kubectl exec` into its readiness probe's file — the simulated kubelet has no exec and runs no
 * probes, so that case does nothing here; 1 deletes a random pod not being deleted yet.
 */
async function injectFailure(
  f: Framework,
  pods: readonly V1Pod[],
  memory: SurgeMemory,
  random: () => number,
) {
  if (Math.floor(random() * 25) !== 1) return;
  const candidates = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
  const pod = candidates[Math.floor(random() * candidates.length)];
  if (!pod) return;
  const result = await f.kubectl([
    'delete',
    'pod',
    pod.metadata?.name ?? '',
    '-n',
    f.namespace,
    '--wait=false',
  ]);
  if (result.code === 0) memory.deliberatelyDeletedPods.add(pod.metadata?.uid ?? '');
}

/** Registers these tests of the `[sig-apps] Daemon set [Serial]` block, run against `f`. */
export function surgeTests(f: Framework): void {
  it(
    'should surge pods onto nodes when spec was updated and update strategy is RollingUpdate',
    async () => {
      // maxSurgeOverlap bounds how long the controller takes to delete an old pod once its node's
      // new one is available: that is the controller's own time, which the time scale leaves alone.
      const rollout: SurgeRollout = {
        oldVersion: '1',
        newVersion: '2',
        maxSurge: 1,
        maxSurgeOverlapMs: 60_000,
      };
      const template = newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL);
      const container = templateSpecOf(template).containers[0];
      if (!container || !template.spec) throw new Error('newDaemonSet built no container');
      container.env = [{ name: 'VERSION', value: rollout.oldVersion }];
      // Upstream delays shutdown by 15 s and probes readiness through a file; the simulated kubelet
      // runs neither hooks nor probes, but the API takes them as a real one does.
      container.lifecycle = { preStop: { exec: { command: ['/bin/sh', '-c', 'sleep 15'] } } };
      container.readinessProbe = {
        exec: { command: ['/bin/sh', '-ec', 'touch /var/tmp/ready; [[ "$( cat /var/tmp/ready )" == "" ]]'] },
        initialDelaySeconds: 7,
        periodSeconds: 3,
        successThreshold: 1,
        failureThreshold: 1,
      };
      template.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 0, maxSurge: '20%' },
      };
      // The pod must be ready for at least 10 s (of the simulated cluster) before the old one goes.
      template.spec.minReadySeconds = Math.round(10 * TIME_SCALE);
      const ds = await createDaemonSet(f, template);
      await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, ds));

      // Check history and labels.
      await waitForHistoryCreated(f, DS_LABEL, 1);
      const first = curHistory(await listDaemonHistories(f, DS_LABEL), await getDaemonSet(f, DS_NAME));
      expect(first.revision).toBe(1);
      expectDaemonSetPodsLabels(
        await listDaemonPods(f, DS_LABEL),
        first.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '',
      );

      // Update daemon pods environment var.
      const patch = JSON.stringify({
        spec: {
          template: {
            spec: {
              containers: [{ name: container.name, env: [{ name: 'VERSION', value: rollout.newVersion }] }],
            },
          },
        },
      });
      const patched = await patchDaemonSet(f, DS_NAME, patch);

      // Time to complete the rolling upgrade is proportional to the number of nodes in the cluster.
      const nodeCount = (await nodesAndPods(f)).nodes.length;
      const retryTimeout = DS_RETRY_TIMEOUT_MS + nodeCount * 30_000 * TIME_SCALE;

      // Check that daemon pods surge and invariants are preserved during that rollout.
      const memory: SurgeMemory = { ageOfOldPod: new Map(), deliberatelyDeletedPods: new Set() };
      // Seed 6 deletes a pod at the 6th and the 13th look, while the rollout is under way.
      const random = seededRandom(6);
      await poll(
        'until the surge rollout is done',
        async () => {
          const { nodes, pods } = await nodesAndPods(f);
          const look = lookAtSurge(pods, patched, memory, rollout, new Date());
          if (look.errors.length > 0) {
            throw new Error(`invariants were violated during daemonset update:\n${look.errors.join('\n')}`);
          }
          if (surgeDone(look, schedulableNodes(nodes, patched), rollout.newVersion)) return true;
          await injectFailure(f, pods, memory, random);
          return `${look.newUnavailableCount} new pods unavailable; versions by node: ${JSON.stringify([...look.nodesToVersions].map(([n, v]) => [n, [...v]]))}`;
        },
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
}
