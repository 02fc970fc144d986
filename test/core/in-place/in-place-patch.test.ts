import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ImagesChange, ResourcesChange } from '../../../lib/core/in-place/in-place-change.ts';
import { inPlaceResizePatch, inPlaceUpdatePatch } from '../../../lib/core/in-place/in-place-patch.ts';
import { jsonPatch } from '../../../lib/sim/storage/json-patch.ts';
import { aPod } from '../../support/builders.ts';

/** A daemon pod of revision `old1` on n1: containers sidecar then agent, controller labels, one annotation. */
function aDaemonPod(changes: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  const pod = aPod('agent-n1', {
    labels: { app: 'agent', version: '1', 'controller-revision-hash': 'old1', 'everynode.dev/node': 'n1' },
    annotations: { 'everynode.dev/failure-backoff': '{}', owner: 'a' },
  });
  pod.metadata = { ...pod.metadata, ...changes };
  pod.spec = {
    containers: [
      { name: 'sidecar', image: 'sidecar:1' },
      {
        name: 'agent',
        image: 'agent:1',
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '2', memory: '128Mi' } },
      },
    ],
  };
  return JSON.parse(JSON.stringify(pod)) as V1Pod;
}

const unchanged = { set: {}, remove: [] };
const images = (containers: ImagesChange['containers'], more: Partial<ImagesChange> = {}): ImagesChange => ({
  type: 'images',
  containers,
  labels: unchanged,
  annotations: unchanged,
  ...more,
});
const applied = (pod: V1Pod, patch: unknown) => jsonPatch(pod, patch) as V1Pod;

describe('inPlaceUpdatePatch', () => {
  it('sets the image of the named container where the pod has it, and the revision label', () => {
    const pod = aDaemonPod();
    const patched = applied(
      pod,
      inPlaceUpdatePatch(pod, images([{ name: 'agent', image: 'agent:2' }]), 'new2'),
    );
    expect(patched.spec?.containers.map((c) => c.image)).toEqual(['sidecar:1', 'agent:2']);
    expect(patched.metadata?.labels).toEqual({ ...pod.metadata?.labels, 'controller-revision-hash': 'new2' });
    // What the update leaves pending: the container's ID before it, so it counts unready until restarted.
    expect(patched.metadata?.annotations).toEqual({
      ...pod.metadata?.annotations,
      'everynode.dev/in-place-update': '{"revision":"new2","containers":{"agent":""}}',
    });
  });

  it('takes the template labels and annotations across, keeping the ones the controller added', () => {
    const pod = aDaemonPod();
    const change = images([], {
      labels: {
        set: { 'app.kubernetes.io/tier': 'node' },
        remove: ['version', 'absent', 'everynode.dev/node'],
      },
      annotations: { set: { owner: 'b', 'a~b': 'x' }, remove: ['gone'] },
    });
    const patched = applied(pod, inPlaceUpdatePatch(pod, change, 'new2', '7'));
    expect(patched.metadata?.labels).toEqual({
      app: 'agent',
      'app.kubernetes.io/tier': 'node',
      'controller-revision-hash': 'new2',
      'pod-template-generation': '7',
      'everynode.dev/node': 'n1',
    });
    expect(patched.metadata?.annotations).toEqual({
      'everynode.dev/failure-backoff': '{}',
      owner: 'b',
      'a~b': 'x',
    });
    expect(patched.spec).toEqual(pod.spec);
  });

  it('adds the annotations map to a pod without one', () => {
    const pod = aDaemonPod({ annotations: undefined });
    delete pod.metadata?.annotations;
    const change = images([], { annotations: { set: { owner: 'b' }, remove: ['owner-old'] } });
    expect(applied(pod, inPlaceUpdatePatch(pod, change, 'new2')).metadata?.annotations).toEqual({
      owner: 'b',
    });
  });

  it('changes nothing on a pod that is not the one read: another uid, or another revision by now', () => {
    const pod = aDaemonPod();
    const patch = inPlaceUpdatePatch(pod, images([{ name: 'agent', image: 'agent:2' }]), 'new2');
    expect(() => applied(aDaemonPod({ uid: 'recreated' }), patch)).toThrow(
      /testing value \/metadata\/uid failed/,
    );
    const moved = aDaemonPod({ labels: { ...pod.metadata?.labels, 'controller-revision-hash': 'other' } });
    expect(() => applied(moved, patch)).toThrow(/controller-revision-hash failed/);
  });

  it('refuses a pod whose containers moved since it was read, and gives nothing for a pod without the container', () => {
    const pod = aDaemonPod();
    const patch = inPlaceUpdatePatch(pod, images([{ name: 'agent', image: 'agent:2' }]), 'new2');
    const reordered = aDaemonPod();
    reordered.spec?.containers.reverse();
    expect(() => applied(reordered, patch)).toThrow(/\/spec\/containers\/1\/name failed/);
    expect(inPlaceUpdatePatch(pod, images([{ name: 'missing', image: 'x:1' }]), 'new2')).toBeUndefined();
  });

  it('moves only the metadata for a resources change (the resize carries the resources)', () => {
    const pod = aDaemonPod();
    const change: ResourcesChange = {
      type: 'resources',
      containers: [{ name: 'agent', resources: { requests: { cpu: '1' } } }],
      labels: { set: { version: '2' }, remove: [] },
      annotations: unchanged,
    };
    const patched = applied(pod, inPlaceUpdatePatch(pod, change, 'new2'));
    expect(patched.spec).toEqual(pod.spec);
    expect(patched.metadata?.labels).toMatchObject({ version: '2', 'controller-revision-hash': 'new2' });
  });
});

describe('inPlaceResizePatch', () => {
  const resize = (containers: ResourcesChange['containers']): ResourcesChange => ({
    type: 'resources',
    containers,
    labels: unchanged,
    annotations: unchanged,
  });

  it("sets the template's cpu and memory over the pod's resources, keeping a limit admission added", () => {
    const pod = aDaemonPod();
    const change = resize([
      {
        name: 'agent',
        resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      },
    ]);
    const patched = applied(pod, inPlaceResizePatch(pod, change));
    expect(patched.spec?.containers[1]?.resources).toEqual({
      requests: { cpu: '250m', memory: '64Mi' },
      limits: { cpu: '2', memory: '128Mi' },
    });
  });

  it('requests a limit the template does not request, as the API server defaults it, and adds missing maps', () => {
    const pod = aDaemonPod();
    const change = resize([
      { name: 'sidecar', resources: { limits: { cpu: 1 as unknown as string, 'nvidia.com/gpu': '1' } } },
    ]);
    const patched = applied(pod, inPlaceResizePatch(pod, change));
    expect(patched.spec?.containers[0]?.resources).toEqual({ requests: { cpu: '1' }, limits: { cpu: '1' } });
  });

  it('refuses a pod whose containers moved, and gives nothing for a pod without the container', () => {
    const pod = aDaemonPod();
    const patch = inPlaceResizePatch(pod, resize([{ name: 'agent', resources: { requests: { cpu: '1' } } }]));
    const reordered = aDaemonPod();
    reordered.spec?.containers.reverse();
    expect(() => applied(reordered, patch)).toThrow(/\/spec\/containers\/1\/name failed/);
    expect(inPlaceResizePatch(pod, resize([{ name: 'missing', resources: {} }]))).toBeUndefined();
  });
});
