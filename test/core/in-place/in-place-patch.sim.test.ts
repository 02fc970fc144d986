import {
  ApiException,
  type CoreV1Api,
  PatchStrategy,
  type V1Pod,
  type V1PodTemplateSpec,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inPlaceChange } from '../../../lib/core/in-place/in-place-change.ts';
import { inPlaceResizePatch, inPlaceUpdatePatch } from '../../../lib/core/in-place/in-place-patch.ts';
import { callOptions } from '../../../lib/kube/requests/kube-apis.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aNode } from '../../support/builders.ts';
import { apisFor, pollUntil } from '../../support/test-daemon-controller.ts';

const namespace = 'default';
const jsonPatch = callOptions({ headers: { 'Content-Type': PatchStrategy.JsonPatch } });
let cluster: SimCluster;
let core: CoreV1Api;

beforeAll(async () => {
  // 1 simulated second = 10 ms: pods run in 20 ms, a resize is actuated 100 ms after it is accepted.
  cluster = await startSimCluster({
    nodes: [aNode('n1')],
    timing: { timeScale: 0.01, podResizeSeconds: 10 },
  });
  ({ core } = apisFor(cluster.kubeconfig));
});
afterAll(() => cluster.stop());

/** The template of revision 1: one container `agent` on busybox:1.36, Burstable. */
const revision1: V1PodTemplateSpec = {
  metadata: { labels: { app: 'agent' } },
  spec: {
    containers: [
      {
        name: 'agent',
        image: 'busybox:1.36',
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
      },
    ],
  },
};
const revision2: V1PodTemplateSpec = {
  metadata: { labels: { app: 'agent', version: '2' } },
  spec: { containers: [{ ...revision1.spec?.containers[0], name: 'agent', image: 'busybox:1.37' }] },
};
const revision3: V1PodTemplateSpec = {
  ...revision2,
  spec: {
    containers: [
      {
        ...revision2.spec?.containers[0],
        name: 'agent',
        resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
      },
    ],
  },
};

const read = (name: string) => core.readNamespacedPod({ namespace, name });
const agentStatus = (pod: V1Pod) => pod.status?.containerStatuses?.find((s) => s.name === 'agent');
const statusOf = async (call: Promise<unknown>) =>
  call.then(
    () => 200,
    (error: unknown) => (error instanceof ApiException ? error.code : -1),
  );

describe('in-place patches on the simulated API server and kubelet', () => {
  it('updates an image in place, then resizes, and refuses the image patch once the pod moved on', async () => {
    const body: V1Pod = {
      metadata: {
        name: 'agent-n1',
        labels: { ...revision1.metadata?.labels, 'controller-revision-hash': 'rev1' },
      },
      spec: { ...revision1.spec, containers: revision1.spec?.containers ?? [], nodeName: 'n1' },
    };
    await core.createNamespacedPod({ namespace, body });
    const running = await pollUntil(
      () => read('agent-n1'),
      (p) => agentStatus(p)?.ready === true,
    );

    const images = inPlaceChange(revision1, revision2);
    expect(images.type).toBe('images');
    if (images.type !== 'images') return;
    const imagePatch = inPlaceUpdatePatch(running, images, 'rev2');
    await core.patchNamespacedPod({ namespace, name: 'agent-n1', body: imagePatch }, jsonPatch);
    const restarted = await pollUntil(
      () => read('agent-n1'),
      (p) => agentStatus(p)?.restartCount === 1 && agentStatus(p)?.ready === true,
    );
    expect(agentStatus(restarted)?.image).toBe('busybox:1.37');
    expect(restarted.metadata?.uid).toBe(running.metadata?.uid);
    expect(restarted.metadata?.labels).toEqual({
      app: 'agent',
      version: '2',
      'controller-revision-hash': 'rev2',
    });

    const resources = inPlaceChange(revision2, revision3);
    expect(resources.type).toBe('resources');
    if (resources.type !== 'resources') return;
    const resize = inPlaceResizePatch(restarted, resources);
    await core.patchNamespacedPodResize({ namespace, name: 'agent-n1', body: resize }, jsonPatch);
    const labels = inPlaceUpdatePatch(restarted, resources, 'rev3');
    await core.patchNamespacedPod({ namespace, name: 'agent-n1', body: labels }, jsonPatch);
    const resized = await pollUntil(
      () => read('agent-n1'),
      (p) => agentStatus(p)?.resources?.requests?.cpu === '250m',
    );
    expect(resized.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '250m', memory: '64Mi' },
      limits: { cpu: '1', memory: '128Mi' },
    });
    expect(agentStatus(resized)?.restartCount).toBe(1);
    expect(resized.metadata?.labels?.['controller-revision-hash']).toBe('rev3');

    // The image patch was made for the pod at rev1: the API server refuses it now (a failed test).
    const stale = core.patchNamespacedPod({ namespace, name: 'agent-n1', body: imagePatch }, jsonPatch);
    expect(await statusOf(stale)).toBe(422);
  });
});
