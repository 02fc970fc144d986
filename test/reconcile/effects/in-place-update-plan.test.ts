import type { V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { controllerRevisionFor, revisionHashOf } from '../../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import { type DaemonSet, TEMPLATE_GENERATION_ANNOTATION } from '../../../lib/core/daemon-set.ts';
import type { JsonPatchOperation } from '../../../lib/core/in-place/in-place-patch.ts';
import {
  type InPlacePlan,
  type InPlaceUpdateRequest,
  inPlacePlan,
} from '../../../lib/reconcile/effects/in-place-update-plan.ts';
import { jsonPatch } from '../../../lib/sim/storage/json-patch.ts';
import { aDaemonSet } from '../../support/builders.ts';

const resources: V1ResourceRequirements = {
  requests: { cpu: '100m', memory: '64Mi' },
  limits: { cpu: '1', memory: '128Mi' },
};
const more: V1ResourceRequirements = { ...resources, requests: { cpu: '250m', memory: '64Mi' } };

/** DaemonSet `agent` whose container `main` runs `image` with `res`. */
function agent(image: string, res: V1ResourceRequirements, annotations?: Record<string, string>): DaemonSet {
  const ds = aDaemonSet('agent', annotations ? { annotations } : {});
  const spec = ds.spec?.template.spec;
  if (spec) spec.containers = [{ name: 'main', image, resources: res }];
  return ds;
}

interface Options {
  readonly annotations?: Record<string, string>;
  readonly edit?: (pod: V1Pod, request: InPlaceUpdateRequest) => InPlaceUpdateRequest | undefined;
}

/** The request taking the pod of `from` to `to`, the pod read with uid `pod-uid`. */
function requestFor(from: DaemonSet, to: DaemonSet, options: Options = {}): InPlaceUpdateRequest {
  const oldRevision = controllerRevisionFor(from, 1);
  const newRevision = controllerRevisionFor(to, 2);
  const pod = daemonPodFor(from, 'n1', revisionHashOf(oldRevision));
  pod.metadata = { ...pod.metadata, uid: 'pod-uid' };
  const request = { ds: to, pod, oldRevision, newRevision, newHash: revisionHashOf(newRevision) };
  return options.edit?.(pod, request) ?? request;
}

const base = agent('busybox:1.36', resources);

/** `ds` with `args` on its container. */
function withArgs(ds: DaemonSet, args: string[]): DaemonSet {
  const main = ds.spec?.template.spec?.containers[0];
  if (main) main.args = args;
  return ds;
}

/** Applying `operations` to the pod recreated (another uid) or moved to another revision fails a `test`. */
function expectGuarded(pod: V1Pod, operations: readonly JsonPatchOperation[]): void {
  const meta = pod.metadata ?? {};
  const recreated = { ...pod, metadata: { ...meta, uid: 'other-uid' } };
  const moved = {
    ...pod,
    metadata: { ...meta, labels: { ...meta.labels, 'controller-revision-hash': 'x' } },
  };
  for (const changed of [recreated, moved])
    expect(() => jsonPatch(changed, operations)).toThrow(/test failed/);
}

describe('inPlacePlan', () => {
  it('takes an image change to one patch of the pod, guarded by uid and revision label', () => {
    const generation = { [TEMPLATE_GENERATION_ANNOTATION]: '2' };
    const request = requestFor(base, agent('busybox:1.37', resources, generation));
    const plan = inPlacePlan(request);
    expect(plan.type).toBe('images');
    if (plan.type !== 'images') return;
    expectGuarded(request.pod, plan.update);
    const patched = jsonPatch(request.pod, plan.update) as V1Pod;
    expect(patched.spec?.containers[0]?.image).toBe('busybox:1.37');
    expect(patched.metadata?.labels).toMatchObject({
      'controller-revision-hash': request.newHash,
      'pod-template-generation': '2',
    });
  });

  it('takes a resources change to a guarded resize, then a patch of the labels only', () => {
    const request = requestFor(base, agent('busybox:1.36', more));
    const plan = inPlacePlan(request);
    expect(plan.type).toBe('resources');
    if (plan.type !== 'resources') return;
    expectGuarded(request.pod, plan.resize);
    const resized = jsonPatch(request.pod, plan.resize) as V1Pod;
    expect(resized.spec?.containers[0]?.resources).toEqual(more);
    expect(resized.metadata?.labels).toEqual(request.pod.metadata?.labels);
    const relabelled = jsonPatch(resized, plan.update) as V1Pod;
    expect(relabelled.spec).toEqual(resized.spec);
    expect(relabelled.metadata?.labels?.['controller-revision-hash']).toBe(request.newHash);
  });

  const recreates: { name: string; request: InPlaceUpdateRequest; reason: string | RegExp }[] = [
    {
      name: 'images and resources together',
      request: requestFor(base, agent('busybox:1.37', more)),
      reason: 'images and resources changed together',
    },
    {
      name: 'another field of a container',
      request: requestFor(base, withArgs(agent('busybox:1.36', resources), ['-v'])),
      reason: /args changed/,
    },
    {
      name: 'a revision without a template',
      request: requestFor(base, agent('busybox:1.37', resources), {
        edit: (_pod, r) => ({ ...r, newRevision: { ...r.newRevision, data: {} } }),
      }),
      reason: /^revision agent-\w+ records no pod template$/,
    },
    {
      name: 'a pod of another revision than the old one',
      request: requestFor(base, agent('busybox:1.37', resources), {
        edit: (pod) => {
          pod.metadata = {
            ...pod.metadata,
            labels: { ...pod.metadata?.labels, 'controller-revision-hash': 'x' },
          };
          return undefined;
        },
      }),
      reason: /^the pod is of revision x, not of revision \w+ the update starts from$/,
    },
    {
      name: 'a pod without the container the change names',
      request: requestFor(base, agent('busybox:1.37', resources), {
        edit: (pod) => {
          if (pod.spec) pod.spec.containers = [{ name: 'other', image: 'busybox:1.36' }];
          return undefined;
        },
      }),
      reason: 'the pod lacks a container the new revision changes',
    },
  ];

  it.each(recreates)('recreates for $name', ({ request, reason }) => {
    const plan: InPlacePlan = inPlacePlan(request);
    expect(plan.type).toBe('recreate');
    if (plan.type === 'recreate') expect(plan.reason).toMatch(reason);
  });
});
