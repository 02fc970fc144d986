import { describe, expect, it } from 'vitest';
import { admitPod, advancePodRun } from '../../../lib/sim/kubelet/kubelet-pod-run.ts';
import { podStatusFor } from '../../../lib/sim/kubelet/kubelet-pod-status.ts';
import { aNode } from '../../support/builders.ts';
import { TEST_RUN_DELAYS } from '../../support/run-delays.ts';

const delays = TEST_RUN_DELAYS;
const pod = { name: 'p', namespace: 'ns', uid: 'u1' };
const t0 = Date.parse('2026-03-01T10:00:00Z');
const scheduled = {
  type: 'PodScheduled',
  status: 'True',
  lastProbeTime: null,
  lastTransitionTime: '2026-03-01T09:59:59Z',
};

function statusAt(image: string, ms: number, previous?: Record<string, unknown>) {
  const run = advancePodRun(
    admitPod({ containers: [{ name: 'c', image }] }, aNode('n1'), t0, '10.244.0.2'),
    t0 + ms,
    delays,
  ).run;
  return podStatusFor(run, pod, previous, '10.0.0.10', t0 + ms);
}

const conditions = (status: Record<string, unknown>) =>
  (status.conditions as { type: string; status: string; lastTransitionTime: string; reason?: string }[]).map(
    (c) => [c.type, c.status, c.lastTransitionTime, c.reason],
  );

describe('podStatusFor', () => {
  it('reports a pod being created: Pending, no pod IP yet, container waiting in ContainerCreating', () => {
    const status = statusAt('busybox', 0, { phase: 'Pending', conditions: [scheduled] });
    expect(status).toMatchObject({
      phase: 'Pending',
      hostIP: '10.0.0.10',
      startTime: '2026-03-01T10:00:00Z',
    });
    expect(status.podIP).toBeUndefined();
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({
        name: 'c',
        ready: false,
        started: false,
        state: { waiting: { reason: 'ContainerCreating' } },
      }),
    ]);
    expect(conditions(status)).toEqual([
      ['PodReadyToStartContainers', 'False', '2026-03-01T10:00:00Z', undefined],
      ['Initialized', 'True', '2026-03-01T10:00:00Z', undefined],
      ['Ready', 'False', '2026-03-01T10:00:00Z', 'ContainersNotReady'],
      ['ContainersReady', 'False', '2026-03-01T10:00:00Z', 'ContainersNotReady'],
      ['PodScheduled', 'True', '2026-03-01T09:59:59Z', undefined],
    ]);
  });

  it('keeps lastTransitionTime of conditions whose status did not change', () => {
    const pending = statusAt('busybox', 0, { conditions: [scheduled] });
    const ready = statusAt('busybox', 5000, pending);
    expect(conditions(ready)).toEqual([
      ['PodReadyToStartContainers', 'True', '2026-03-01T10:00:05Z', undefined],
      ['Initialized', 'True', '2026-03-01T10:00:00Z', undefined],
      ['Ready', 'True', '2026-03-01T10:00:05Z', undefined],
      ['ContainersReady', 'True', '2026-03-01T10:00:05Z', undefined],
      ['PodScheduled', 'True', '2026-03-01T09:59:59Z', undefined],
    ]);
    expect(ready).toMatchObject({ phase: 'Running', podIP: '10.244.0.2', podIPs: [{ ip: '10.244.0.2' }] });
  });

  it('shows a crashing container in CrashLoopBackOff with its last termination', () => {
    // started at 1 s, exited at 3 s, waiting 10 s
    const status = statusAt('everynode.dev/sim:crashloop', 4000);
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({
        restartCount: 0,
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: 'back-off 10s restarting failed container=c pod=p_ns(u1)',
          },
        },
        lastState: {
          terminated: expect.objectContaining({
            exitCode: 1,
            reason: 'Error',
            finishedAt: '2026-03-01T10:00:03Z',
          }),
        },
      }),
    ]);
  });

  it('reports an admission rejection as Failed with its reason and message', () => {
    const run = admitPod({ containers: [{ name: 'c' }], nodeSelector: { disk: 'ssd' } }, aNode('n1'), t0, '');
    expect(podStatusFor(run, pod, { conditions: [scheduled] }, '10.0.0.10', t0)).toEqual({
      hostIP: '10.0.0.10',
      hostIPs: [{ ip: '10.0.0.10' }],
      startTime: '2026-03-01T10:00:00Z',
      phase: 'Failed',
      reason: 'NodeAffinity',
      message: 'Pod was rejected: Predicate NodeAffinity failed',
      conditions: [scheduled],
    });
  });
});
