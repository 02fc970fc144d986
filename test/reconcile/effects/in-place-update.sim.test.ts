/**
 * In-place updates of a daemon pod against the simulated cluster through the real client: an image
 * change patches the pod (same uid, the kubelet restarts the container), a resources change resizes
 * it and then moves its revision label, a change that cannot be made in place writes nothing, a pod
 * that changed since it was read is left alone, and a resize the node cannot take shows in the
 * pod's resize status.
 */
import type { V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { controllerRevisionFor, revisionHashOf } from '../../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../../lib/core/daemon-set.ts';
import { resizeStatus } from '../../../lib/core/in-place/resize-status.ts';
import { updateInPlace } from '../../../lib/reconcile/effects/in-place-update.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, isReady, waitFor } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { reconcileRequests, recordedEvents, writesAmong } from '../../support/reconcile-step-deps.ts';

const burstable: V1ResourceRequirements = {
  requests: { cpu: '100m', memory: '64Mi' },
  limits: { cpu: '1', memory: '128Mi' },
};

interface Template {
  readonly image?: string;
  readonly resources?: V1ResourceRequirements;
}

/** The DaemonSet `name` with one container `main` of `template` (busybox:1.36, Burstable by default). */
function daemonSetWith(name: string, template: Template = {}): DaemonSet {
  const ds = aDaemonSet(name);
  const container = { name: 'main', image: template.image ?? 'busybox:1.36' };
  const spec = ds.spec?.template.spec;
  if (spec) spec.containers = [{ ...container, resources: template.resources ?? burstable }];
  return ds;
}

/** `ds` (as stored: defaulted) with the image and resources of `main` changed to `template`'s. */
function withTemplate(ds: Readonly<DaemonSet>, template: Template): DaemonSet {
  const next = structuredClone(ds) as DaemonSet;
  const main = next.spec?.template.spec?.containers[0];
  if (main && template.image) main.image = template.image;
  if (main && template.resources) main.resources = template.resources;
  return next;
}

describe('updateInPlace against the simulated cluster', () => {
  let harness: Harness;
  beforeAll(async () => {
    // 1 simulated second = 10 ms: a resize is actuated 0.5 s after the kubelet admits it.
    harness = await startReconcileHarness({
      nodes: [aNode('n1')],
      pollWork: false,
      timing: { podResizeSeconds: 50 },
    });
  });
  afterAll(async () => harness?.stop());
  beforeEach(() => harness.sim.counters.reset());

  const stored = (name: string) => harness.sim.store.get('pods', 'default', name) as unknown as V1Pod;
  const mainStatus = (pod: V1Pod) => pod.status?.containerStatuses?.find((s) => s.name === 'main');

  /**
   * The DaemonSet `name` created at `from`, its running pod on n1 (created through the port, as the
   * executor creates it), and the revisions of `from` and `to`.
   */
  async function running(name: string, to: Template, from: Template = {}, edit?: (pod: V1Pod) => void) {
    const ds = createDaemonSet(harness, daemonSetWith(name, from));
    const oldRevision = controllerRevisionFor(ds, 1);
    const newRevision = controllerRevisionFor(withTemplate(ds, to), 2);
    const pod = daemonPodFor(ds, 'n1', revisionHashOf(oldRevision));
    edit?.(pod);
    const created = await harness.deps.ports.kube.createPod(pod);
    const podName = created.metadata?.name ?? '';
    await waitFor(`${podName} ready`, () => isReady(stored(podName)));
    harness.sim.counters.reset();
    return {
      ds,
      pod: stored(podName),
      podName,
      oldRevision,
      newRevision,
      newHash: revisionHashOf(newRevision),
    };
  }

  const labelOf = (pod: V1Pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const writes = () => writesAmong(reconcileRequests(harness.sim));
  const messages = async (ds: string, reason: string) =>
    (await recordedEvents(harness, ds, reason)).map((e) => e.message);

  it('updates an image in place: same uid, new image, revision label moved, container restarted', async () => {
    const request = await running('images', { image: 'busybox:1.37' });
    const outcome = await updateInPlace(harness.deps, request);
    expect(outcome.type).toBe('updated');
    const after = stored(request.podName);
    expect(after.metadata?.uid).toBe(request.pod.metadata?.uid);
    expect(after.spec?.containers[0]?.image).toBe('busybox:1.37');
    expect(labelOf(after)).toBe(request.newHash);
    expect(writes()).toEqual({ 'patch pods': 1 });
    await waitFor('main restarted on busybox:1.37', () => {
      const status = mainStatus(stored(request.podName));
      return status?.restartCount === 1 && status.image === 'busybox:1.37' && status.ready === true;
    });
    expect(await messages('images', 'UpdatedInPlace')).toEqual([
      `Updated pod default/${request.podName} on node n1 in place to revision ${request.newHash} (images main=busybox:1.37)`,
    ]);
  });

  it('resizes, then moves the revision label; the resize is in progress, then done, without a restart', async () => {
    const resources = { ...burstable, requests: { cpu: '250m', memory: '64Mi' } };
    const request = await running('resources', { resources });
    const outcome = await updateInPlace(harness.deps, request);
    expect(outcome.type).toBe('resized');
    expect(writes()).toEqual({ 'patch pods': 1, 'patch pods/resize': 1 });
    const after = stored(request.podName);
    expect(after.metadata?.uid).toBe(request.pod.metadata?.uid);
    expect(after.spec?.containers[0]?.resources).toEqual(resources);
    expect(labelOf(after)).toBe(request.newHash);
    expect(resizeStatus(after).type).toBe('in-progress');
    await waitFor('the resize done', () => resizeStatus(stored(request.podName)).type === 'done');
    expect(mainStatus(stored(request.podName))?.restartCount).toBe(0);
    expect(await messages('resources', 'Resized')).toEqual([
      `Resized pod default/${request.podName} on node n1 in place to revision ${request.newHash} (containers main)`,
    ]);
  });

  it('returns recreate for images and resources changed together, writing nothing', async () => {
    const resources = { ...burstable, requests: { cpu: '250m', memory: '64Mi' } };
    const request = await running('mixed', { image: 'busybox:1.37', resources });
    const outcome = await updateInPlace(harness.deps, request);
    expect(outcome).toEqual({ type: 'recreate', reason: 'images and resources changed together' });
    expect(writes()).toEqual({});
    expect(labelOf(stored(request.podName))).toBe(labelOf(request.pod));
  });

  it('returns stale for a pod recreated under its name, moved to another revision, or gone', async () => {
    const image = { image: 'busybox:1.37' };
    const resources = { resources: { ...burstable, requests: { cpu: '250m', memory: '64Mi' } } };
    const kube = harness.deps.ports.kube;
    const cases = [
      {
        name: 'stale-uid',
        to: image,
        change: async (pod: V1Pod) => {
          const meta = pod.metadata ?? {};
          await kube.deletePod(
            { namespace: 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
            {
              gracePeriodSeconds: 0,
            },
          );
          await waitFor('the pod gone', () => stored(meta.name ?? '') === undefined);
          const { uid: _u, resourceVersion: _r, ...rest } = meta;
          await kube.createPod({ ...pod, metadata: rest, status: {} });
        },
      },
      {
        name: 'stale-hash',
        to: resources,
        change: (pod: V1Pod) =>
          kube.jsonPatchPod('default', pod.metadata?.name ?? '', [
            { op: 'replace', path: `/metadata/labels/${CONTROLLER_REVISION_HASH_LABEL}`, value: 'other' },
          ]),
      },
      {
        name: 'stale-gone',
        to: image,
        change: async (pod: V1Pod) => {
          const meta = pod.metadata ?? {};
          const target = { namespace: 'default', name: meta.name ?? '', uid: meta.uid ?? '' };
          await kube.deletePod(target, { gracePeriodSeconds: 0 });
          await waitFor('the pod gone', () => stored(meta.name ?? '') === undefined);
        },
      },
    ];
    for (const c of cases) {
      const request = await running(c.name, c.to);
      await c.change(request.pod);
      const before = stored(request.podName);
      await expect(updateInPlace(harness.deps, request), c.name).resolves.toEqual({ type: 'stale' });
      const after = stored(request.podName);
      expect(after?.spec?.containers[0], c.name).toEqual(before?.spec?.containers[0]);
      expect(after && labelOf(after), c.name).toBe(before && labelOf(before));
    }
  });

  it('returns recreate with the server message when pods/resize refuses the resize', async () => {
    // The pod's memory limit is above its template's: the resize would lower it, which a
    // NotRequired memory resizePolicy forbids.
    const resources = { ...burstable, requests: { cpu: '250m', memory: '64Mi' } };
    const request = await running('refused', { resources }, {}, (pod) => {
      const main = pod.spec?.containers[0];
      if (main) main.resources = { ...burstable, limits: { cpu: '1', memory: '256Mi' } };
    });
    const outcome = await updateInPlace(harness.deps, request);
    expect(outcome).toMatchObject({
      type: 'recreate',
      reason: expect.stringMatching(
        /memory limits cannot be decreased unless resizePolicy is RestartContainer/,
      ),
    });
    // The resize was sent and refused; the pod's labels were not patched.
    expect(writes()).toEqual({ 'patch pods/resize': 1 });
    const after = stored(request.podName);
    expect(after.spec?.containers[0]?.resources).toEqual(request.pod.spec?.containers[0]?.resources);
    expect(labelOf(after)).toBe(labelOf(request.pod));
  });

  it('shows a resize beyond the node as Infeasible in the resize status', async () => {
    const resources = { requests: { cpu: '5', memory: '64Mi' }, limits: { cpu: '5', memory: '128Mi' } };
    const request = await running('huge', { resources });
    const outcome = await updateInPlace(harness.deps, request);
    expect(outcome.type).toBe('resized');
    await waitFor('the resize pending', () => resizeStatus(stored(request.podName)).type !== 'in-progress');
    expect(resizeStatus(stored(request.podName))).toEqual({
      type: 'infeasible',
      message: "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000",
    });
  });
});
