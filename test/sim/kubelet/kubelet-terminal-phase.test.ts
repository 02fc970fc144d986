import { type CoreV1Api, PatchStrategy, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOptions } from '../../../lib/kube/requests/kube-apis.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aNode } from '../../support/builders.ts';
import { findKubectl, kubectlFor } from '../../support/kubectl-harness.ts';
import { conditionOf, pause } from '../../support/runtime-harness.ts';
import { apisFor, pollUntil } from '../../support/test-daemon-controller.ts';

const binary = findKubectl();
const namespace = 'default';
let cluster: SimCluster;
let core: CoreV1Api;

beforeAll(async () => {
  // 1 simulated second = 100 ms: pods run and are ready in 200 ms, containers stop 100 ms after SIGTERM.
  cluster = await startSimCluster({ nodes: [aNode('n1')], timing: { timeScale: 0.1 } });
  ({ core } = apisFor(cluster.kubeconfig));
});
afterAll(() => cluster.stop());

/** Creates a pod of one plain container and resolves once it is Running and Ready. */
async function runningPod(name: string): Promise<V1Pod> {
  const body: V1Pod = { metadata: { name }, spec: { containers: [{ name: 'main', image: 'busybox' }] } };
  await core.createNamespacedPod({ namespace, body });
  const pod = await pollUntil(
    () => core.readNamespacedPod({ namespace, name }),
    (p) => conditionOf(p as never, 'Ready') === 'True',
  );
  expect(pod.status?.phase).toBe('Running');
  return pod;
}

const setters: {
  name: string;
  phase: 'Failed' | 'Succeeded';
  set: (pod: V1Pod, phase: string) => Promise<unknown>;
}[] = [
  {
    name: 'patchNamespacedPodStatus (merge patch) to Failed',
    phase: 'Failed',
    set: (pod, phase) =>
      core.patchNamespacedPodStatus(
        { namespace, name: pod.metadata?.name ?? '', body: { status: { phase } } },
        callOptions({ headers: { 'Content-Type': PatchStrategy.MergePatch } }),
      ),
  },
  {
    name: 'replaceNamespacedPodStatus to Succeeded',
    phase: 'Succeeded',
    set: (pod, phase) =>
      core.replaceNamespacedPodStatus({
        namespace,
        name: pod.metadata?.name ?? '',
        body: { ...pod, status: { ...pod.status, phase } },
      }),
  },
  {
    name: 'kubectl patch --subresource=status to Failed',
    phase: 'Failed',
    set: async (pod, phase) => {
      const patch = JSON.stringify({ status: { phase } });
      const args = ['patch', 'pod', pod.metadata?.name ?? '', '--subresource=status', '--type=merge'];
      const result = await kubectlFor(binary ?? 'kubectl', cluster)([...args, '-p', patch]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
    },
  },
];

/** The cases to run: the kubectl one only with a kubectl (findKubectl says loudly when there is none). */
const cases = setters
  .filter((s) => binary || !s.name.startsWith('kubectl'))
  .map((s, i) => ({ ...s, pod: `ended-${i}` }));

describe('a pod set to a terminal phase through pods/status', () => {
  it.each(cases)(
    '$name: the phase stays, the containers stop and nothing restarts',
    async ({ phase, set, pod: podName }) => {
      const pod = await runningPod(podName);
      await set(pod, phase);
      // Well past the kubelet's next sync, and the 1 s (100 ms) its container takes to stop.
      await pause(600);
      const ended = await core.readNamespacedPod({ namespace, name: podName });
      expect(ended.status?.phase).toBe(phase);
      expect(ended.metadata?.deletionTimestamp).toBeUndefined();
      expect(conditionOf(ended as never, 'Ready')).toBe('False');
      expect(ended.status?.containerStatuses).toMatchObject([
        { name: 'main', ready: false, restartCount: 0, state: { terminated: { exitCode: 143 } } },
      ]);
    },
  );
});
