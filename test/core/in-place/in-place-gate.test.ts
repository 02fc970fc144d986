import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  closeGateConditions,
  closesGateFor,
  createsGatedPods,
  gateToOpen,
  gateToReopen,
  IN_PLACE_GATE,
  withInPlaceGate,
} from '../../../lib/core/in-place/in-place-gate.ts';
import { IN_PLACE_STATE_ANNOTATION } from '../../../lib/core/in-place/in-place-state.ts';
import { isPodReady } from '../../../lib/core/pod-availability.ts';

const now = new Date('2026-03-01T10:00:00Z');
const cond = (type: string, status: string): V1PodCondition => ({ type, status });

function gatedPod(conditions: V1PodCondition[], extra: Partial<V1Pod['metadata']> = {}): V1Pod {
  return withInPlaceGate({
    metadata: {
      name: 'p',
      namespace: 'ns',
      uid: 'u1',
      labels: { 'controller-revision-hash': 'h2' },
      ...extra,
    },
    spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] },
    status: { phase: 'Running', conditions, containerStatuses: [] },
  });
}

const running = [cond('Ready', 'True'), cond('ContainersReady', 'True')];
const images = (names: string[]) => ({
  type: 'images' as const,
  containers: names.map((name) => ({ name, image: 'busybox:1.38' })),
  labels: { set: {}, remove: [] },
  annotations: { set: {}, remove: [] },
});

describe('the in-place readiness gate', () => {
  it('gates the pods of DaemonSets that update in place, once', () => {
    const ds = (inPlace: string) => ({ spec: { updateStrategy: { rollingUpdate: { inPlace } } } }) as never;
    expect([createsGatedPods(ds('IfPossible')), createsGatedPods(ds('Never'))]).toEqual([true, false]);
    const pod = gatedPod([]);
    expect(withInPlaceGate(pod).spec?.readinessGates).toEqual([{ conditionType: IN_PLACE_GATE }]);
  });

  it('is owed its True when absent or False with no update pending, never while one is or the pod goes', () => {
    expect(gateToOpen(gatedPod([]))).toBe(true);
    expect(gateToReopen(gatedPod([]))).toBe(false);
    expect(gateToReopen(gatedPod([cond(IN_PLACE_GATE, 'False')]))).toBe(true);
    expect(gateToOpen(gatedPod([cond(IN_PLACE_GATE, 'True')]))).toBe(false);
    const pending = gatedPod([cond(IN_PLACE_GATE, 'False')], {
      annotations: {
        [IN_PLACE_STATE_ANNOTATION]: JSON.stringify({ revision: 'h2', containers: { c: 'old' } }),
      },
    });
    expect(gateToOpen(pending)).toBe(false);
    expect(gateToOpen(gatedPod([], { deletionTimestamp: now }))).toBe(false);
    const ungated = { ...gatedPod([]), spec: { containers: [] } };
    expect(gateToOpen(ungated)).toBe(false);
  });

  it('closes with the pod Ready False as the kubelet will word it, over every gate of the pod', () => {
    const pod = gatedPod(running);
    pod.spec?.readinessGates?.unshift({ conditionType: 'example.com/lb' });
    expect(closeGateConditions(pod, now)).toEqual([
      { type: IN_PLACE_GATE, status: 'False', reason: 'StartInPlaceUpdate', lastTransitionTime: now },
      {
        type: 'Ready',
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message:
          'corresponding condition of pod readiness gate "example.com/lb" does not exist., ' +
          `the status of pod readiness gate "${IN_PLACE_GATE}" is not "True", but False`,
        lastTransitionTime: now,
      },
    ]);
    // Containers not ready: the kubelet's Ready already says why; only the gate is written.
    expect(
      closeGateConditions(gatedPod([cond('Ready', 'False'), cond('ContainersReady', 'False')]), now),
    ).toHaveLength(1);
  });

  it('closes for a restart only: an image, or a resize whose policy restarts the container', () => {
    const pod = gatedPod(running);
    expect(closesGateFor(pod, images(['c']))).toBe(true);
    expect(closesGateFor(pod, images([]))).toBe(false);
    const resize = { ...images([]), type: 'resources' as const, containers: [{ name: 'c', resources: {} }] };
    expect(closesGateFor(pod, resize)).toBe(false);
    const restarting = structuredClone(pod);
    const container = restarting.spec?.containers[0];
    if (container) container.resizePolicy = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
    expect(closesGateFor(restarting, resize)).toBe(true);
    expect(closesGateFor({ ...pod, spec: { containers: pod.spec?.containers ?? [] } }, images(['c']))).toBe(
      false,
    );
  });

  it('keeps a pod whose gate is False not ready even while its Ready still says True', () => {
    expect(isPodReady(gatedPod([...running, cond(IN_PLACE_GATE, 'True')]))).toBe(true);
    expect(isPodReady(gatedPod([...running, cond(IN_PLACE_GATE, 'False')]))).toBe(false);
    // An absent condition is the kubelet's to judge: its Ready is the answer.
    expect(isPodReady(gatedPod(running))).toBe(true);
  });
});
