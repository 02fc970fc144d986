import type {
  V1ContainerStatus,
  V1Pod,
  V1PodCondition,
  V1ResourceRequirements,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type ResizeStatus, resizeStatus } from '../../../lib/core/in-place/resize-status.ts';
import { aPod } from '../../support/builders.ts';

const wanted: V1ResourceRequirements = {
  requests: { cpu: '250m', memory: '64Mi' },
  limits: { cpu: '1', memory: '128Mi' },
};
/** What the kubelet reports once `wanted` is applied: cpu in millicores, the memory limit in bytes. */
const applied: V1ResourceRequirements = {
  requests: { cpu: '250m', memory: '64Mi' },
  limits: { cpu: '1000m', memory: '134217728' },
};
const before: V1ResourceRequirements = { ...applied, requests: { cpu: '100m', memory: '64Mi' } };

interface PodState {
  readonly conditions?: V1PodCondition[];
  /** The `resources` of each container's status, by name; a container left out reports none. */
  readonly reported?: Record<string, V1ResourceRequirements | undefined>;
  readonly generation?: number;
  readonly observedGeneration?: number;
}

/** A running pod with containers `main` (resized to `wanted`) and `sidecar` (cpu 50m). */
function aResizedPod(state: PodState): V1Pod {
  const pod = aPod('agent-n1', { phase: 'Running' });
  const sidecar = { requests: { cpu: '50m' } };
  pod.spec = {
    containers: [
      { name: 'main', image: 'busybox:1.36', resources: wanted },
      { name: 'sidecar', image: 'sidecar:1', resources: sidecar },
    ],
  };
  const reported = state.reported ?? { main: applied, sidecar };
  const statuses: V1ContainerStatus[] = Object.entries(reported).map(([name, resources]) => ({
    name,
    image: 'busybox:1.36',
    imageID: '',
    ready: true,
    restartCount: 0,
    ...(resources ? { resources } : {}),
  }));
  if (state.generation !== undefined) pod.metadata = { ...pod.metadata, generation: state.generation };
  pod.status = {
    ...pod.status,
    conditions: [...(pod.status?.conditions ?? []), ...(state.conditions ?? [])],
    containerStatuses: statuses,
    ...(state.observedGeneration !== undefined ? { observedGeneration: state.observedGeneration } : {}),
  };
  return pod;
}

const condition = (type: string, reason?: string, message?: string, status = 'True'): V1PodCondition => ({
  type,
  status,
  ...(reason ? { reason } : {}),
  ...(message ? { message } : {}),
});

const cases: { name: string; state: PodState; containers?: string[]; status: ResizeStatus }[] = [
  {
    name: 'applied, quantities equal by value (1 = 1000m, 128Mi = 134217728): done',
    state: {},
    status: { type: 'done' },
  },
  {
    name: 'pending Infeasible: recreate',
    state: {
      conditions: [condition('PodResizePending', 'Infeasible', "Node didn't have enough capacity: cpu")],
      reported: { main: before, sidecar: { requests: { cpu: '50m' } } },
    },
    status: { type: 'infeasible', message: "Node didn't have enough capacity: cpu" },
  },
  {
    name: 'pending Deferred: wait',
    state: {
      conditions: [condition('PodResizePending', 'Deferred', "Node didn't have enough resource: cpu")],
      reported: { main: before, sidecar: { requests: { cpu: '50m' } } },
    },
    status: { type: 'deferred', message: "Node didn't have enough resource: cpu" },
  },
  {
    name: 'Infeasible wins over an InProgress of an earlier resize',
    state: {
      conditions: [condition('PodResizeInProgress'), condition('PodResizePending', 'Infeasible', 'no')],
    },
    status: { type: 'infeasible', message: 'no' },
  },
  {
    name: 'in progress, with the error of a failed attempt',
    state: { conditions: [condition('PodResizeInProgress', 'Error', 'runtime said no')] },
    status: { type: 'in-progress', message: 'the kubelet is applying the resize: runtime said no' },
  },
  {
    name: 'a condition that no longer holds (status False) is no resize state',
    state: { conditions: [condition('PodResizePending', 'Infeasible', 'old', 'False')] },
    status: { type: 'done' },
  },
  {
    name: 'no condition yet, the old resources still applied: in progress',
    state: { reported: { main: before, sidecar: { requests: { cpu: '50m' } } } },
    status: { type: 'in-progress', message: 'container main runs with requests.cpu 100m, not 250m' },
  },
  {
    name: 'a container reporting no resources (not running yet): in progress',
    state: { reported: { main: applied } },
    status: { type: 'in-progress', message: 'container sidecar reports no resources yet' },
  },
  {
    name: 'only the containers asked about count',
    state: { reported: { main: applied } },
    containers: ['main'],
    status: { type: 'done' },
  },
  {
    name: 'the kubelet has not observed the generation that carries the resize',
    state: { generation: 3, observedGeneration: 2 },
    status: { type: 'in-progress', message: 'the kubelet has not observed generation 3 yet' },
  },
  {
    name: 'the generation observed',
    state: { generation: 3, observedGeneration: 3 },
    status: { type: 'done' },
  },
];

describe('resizeStatus', () => {
  it.each(cases)('$name', ({ state, containers, status }) => {
    expect(resizeStatus(aResizedPod(state), containers)).toEqual(status);
  });
});
