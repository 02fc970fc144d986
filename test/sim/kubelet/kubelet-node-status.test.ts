import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  BROKEN_BY_MARKER,
  breaksNodeFrom,
  kubeletIsUp,
  kubeletReadyConditions,
  registeredNodeStatus,
} from '../../../lib/sim/kubelet/kubelet-node-status.ts';
import { admitPod, advancePodRun, type RunDelays } from '../../../lib/sim/kubelet/kubelet-pod-run.ts';
import { stopPodRun } from '../../../lib/sim/kubelet/kubelet-pod-stop.ts';
import { aNode } from '../../support/builders.ts';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:00:10Z';
const T2 = '2026-01-01T00:00:20Z';

/** A node as its kubelet registered it at T0, with its Ready condition then replaced by `ready`. */
function nodeWith(ready: Record<string, unknown>): V1Node {
  const registered = registeredNodeStatus(aNode('n1', {}), '10.0.0.10', T0) as { conditions: object[] };
  const conditions = [
    ...(registered.conditions as { type: string }[]).filter((c) => c.type !== 'Ready'),
    { type: 'Ready', lastHeartbeatTime: T0, lastTransitionTime: T0, ...ready },
  ];
  return { ...aNode('n1'), status: { ...registered, conditions } } as unknown as V1Node;
}
const ready = nodeWith({
  status: 'True',
  reason: 'KubeletReady',
  message: 'kubelet is posting ready status',
});
const broken = nodeWith(BROKEN_BY_MARKER);
const controlledNotReady = nodeWith({
  status: 'False',
  reason: 'KubeletNotReady',
  message: 'container runtime network not ready: NetworkReady=false',
});
const unknown = nodeWith({ status: 'Unknown', reason: 'NodeStatusUnknown' });
const readyOf = (conditions: Record<string, unknown>[] | undefined) =>
  conditions?.find((c) => c.type === 'Ready');

describe('kubeletIsUp', () => {
  it.each([
    ['Ready', ready, true],
    ['NotReady by a break-node container', broken, true],
    ['NotReady as the node controls set it', controlledNotReady, false],
    ['Unknown', unknown, false],
    ['without a Ready condition', { ...aNode('n1'), status: {} } as V1Node, false],
  ])('%s: %s', (_name, node, up) => {
    expect(kubeletIsUp(node)).toBe(up);
  });
});

describe('kubeletReadyConditions', () => {
  it('turns a Ready node NotReady with the network-plugin reason, renewing the heartbeats', () => {
    const conditions = kubeletReadyConditions(ready, true, T1);
    expect(readyOf(conditions)).toEqual({
      type: 'Ready',
      ...BROKEN_BY_MARKER,
      lastHeartbeatTime: T1,
      lastTransitionTime: T1,
    });
    expect(BROKEN_BY_MARKER.reason).toBe('KubeletNotReady');
    expect(BROKEN_BY_MARKER.message).toMatch(/^container runtime network not ready: NetworkReady=false /);
    // The other conditions keep their status and lastTransitionTime; their heartbeat is renewed.
    expect(conditions?.find((c) => c.type === 'MemoryPressure')).toMatchObject({
      status: 'False',
      lastHeartbeatTime: T1,
      lastTransitionTime: T0,
    });
    expect(conditions?.map((c) => c.type)).toEqual([
      'MemoryPressure',
      'DiskPressure',
      'PIDPressure',
      'Ready',
    ]);
  });

  it('turns a node the marker broke Ready again once nothing breaks it', () => {
    expect(readyOf(kubeletReadyConditions(broken, false, T2))).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
      lastHeartbeatTime: T2,
      lastTransitionTime: T2,
    });
  });

  it.each([
    ['a Ready node nothing breaks', ready, false],
    ['a broken node still broken', broken, true],
    ['a node the controls set NotReady, broken', controlledNotReady, true],
    ['a node the controls set NotReady, not broken', controlledNotReady, false],
    ['an Unknown node, broken', unknown, true],
    ['an Unknown node, not broken', unknown, false],
  ])('writes nothing for %s', (_name, node, isBroken) => {
    expect(kubeletReadyConditions(node, isBroken, T1)).toBeUndefined();
  });
});

describe('breaksNodeFrom', () => {
  const delays: RunDelays = {
    startMs: 100,
    readyMs: 50,
    exitMs: 200,
    backOffMs: 1000,
    maxBackOffMs: 3000,
    stopMs: 20,
  };
  const admitted = (...images: string[]) =>
    admitPod(
      { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      aNode('n1'),
      0,
      '10.244.0.2',
    );
  const at = (images: string[], now: number) => advancePodRun(admitted(...images), now, delays).run;

  it('is breakMs after the break-node container started, once it runs', () => {
    expect(breaksNodeFrom(at(['everynode.dev/sim:break-node'], 50), 3000)).toBeUndefined();
    expect(breaksNodeFrom(at(['busybox', 'everynode.dev/sim:break-node'], 100), 3000)).toBe(3100);
  });

  it('is undefined for a pod without the marker', () => {
    expect(breaksNodeFrom(at(['busybox'], 1000), 3000)).toBeUndefined();
  });

  it('is undefined once the container exited after SIGTERM, or the pod is terminal', () => {
    const running = at(['everynode.dev/sim:break-node'], 1000);
    const killed = advancePodRun(stopPodRun(running, 2000, 30_000), 2020, delays).run;
    expect(breaksNodeFrom(killed, 3000)).toBeUndefined();
    expect(breaksNodeFrom(stopPodRun(running, 2000, 30_000, 'Failed'), 3000)).toBeUndefined();
  });
});
