import type { V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { containerBehaviorOf } from '../../../lib/sim/kubelet/kubelet-image-markers.ts';
import {
  admitPod,
  advancePodRun,
  containersReady,
  type PodRun,
  type RunDelays,
} from '../../../lib/sim/kubelet/kubelet-pod-run.ts';
import { aNode } from '../../support/builders.ts';

const delays: RunDelays = {
  startMs: 100,
  readyMs: 50,
  exitMs: 200,
  backOffMs: 1000,
  maxBackOffMs: 3000,
  stopMs: 20,
};
const spec = (...images: string[]): V1PodSpec => ({
  containers: images.map((image, i) => ({ name: `c${i}`, image })),
});
const admitted = (...images: string[]): PodRun => admitPod(spec(...images), aNode('n1'), 0, '10.244.0.2');

/** The run after advancing to each time in turn, as (phase, ready, restarts, dueAt). */
function timeline(run: PodRun, times: number[]): [string, boolean, number, number | undefined][] {
  let current = run;
  return times.map((t) => {
    const next = advancePodRun(current, t, delays);
    current = next.run;
    const restarts = current.containers.reduce((sum, c) => sum + c.restartCount, 0);
    return [current.phase, containersReady(current), restarts, next.dueAt];
  });
}

describe('containerBehaviorOf', () => {
  it.each([
    ['busybox', 'run'],
    ['everynode.dev/sim:crashloop', 'crashloop'],
    ['everynode.dev/sim:crashloop-v2', 'crashloop'],
    ['everynode.dev/sim:fail', 'fail'],
    ['everynode.dev/sim:succeed', 'succeed'],
    ['everynode.dev/sim:unready', 'unready'],
    ['everynode.dev/sim:ignore-sigterm', 'ignore-sigterm'],
    ['everynode.dev/sim:ignore-sigterm-v2', 'ignore-sigterm'],
    ['everynode.dev/sim:break-node', 'break-node'],
    ['everynode.dev/sim:break-node-v2', 'break-node'],
    ['everynode.dev/sim:v1', 'run'],
    ['example.com/crashloop:fail', 'run'],
  ])('%s behaves as %s', (image, expected) => {
    expect(containerBehaviorOf(image)).toBe(expected);
  });
});

describe('advancePodRun', () => {
  const cases: { name: string; images: string[]; times: number[]; expected: ReturnType<typeof timeline> }[] =
    [
      {
        name: 'a plain container starts after startMs and is ready readyMs later',
        images: ['busybox'],
        times: [0, 99, 100, 149, 150, 10_000],
        expected: [
          ['Pending', false, 0, 100],
          ['Pending', false, 0, 100],
          ['Running', false, 0, 150],
          ['Running', false, 0, 150],
          ['Running', true, 0, undefined],
          ['Running', true, 0, undefined],
        ],
      },
      {
        name: 'a late tick applies every due transition at once',
        images: ['busybox'],
        times: [5000],
        expected: [['Running', true, 0, undefined]],
      },
      {
        name: 'crashloop exits after exitMs and restarts after a doubling back-off',
        images: ['everynode.dev/sim:crashloop'],
        // start 100, exit 300 → back-off 1000 → restart 1300 (1), exit 1500 → back-off 2000 → 3500 (2)
        times: [100, 300, 1299, 1300, 1500, 3500],
        expected: [
          ['Running', false, 0, 300],
          ['Running', false, 0, 1300],
          ['Running', false, 0, 1300],
          ['Running', false, 1, 1500],
          ['Running', false, 1, 3500],
          ['Running', false, 2, 3700],
        ],
      },
      {
        name: 'the back-off is capped',
        images: ['everynode.dev/sim:crashloop'],
        // from the 3rd restart on, every cycle is 200 running + 3000 back-off: restart 32 at 99,500
        times: [100_000],
        expected: [['Running', false, 32, 102_700]],
      },
      {
        name: 'fail makes the pod Failed when the container exits',
        images: ['busybox', 'everynode.dev/sim:fail'],
        times: [150, 300, 10_000],
        expected: [
          ['Running', false, 0, 300],
          ['Failed', false, 0, undefined],
          ['Failed', false, 0, undefined],
        ],
      },
      {
        name: 'succeed on every container makes the pod Succeeded',
        images: ['everynode.dev/sim:succeed', 'everynode.dev/sim:succeed'],
        times: [300],
        expected: [['Succeeded', false, 0, undefined]],
      },
      {
        name: 'ignore-sigterm runs and becomes ready like any image',
        images: ['everynode.dev/sim:ignore-sigterm'],
        times: [150, 10_000],
        expected: [
          ['Running', true, 0, undefined],
          ['Running', true, 0, undefined],
        ],
      },
      {
        name: 'break-node runs and becomes ready like any image',
        images: ['everynode.dev/sim:break-node'],
        times: [150, 10_000],
        expected: [
          ['Running', true, 0, undefined],
          ['Running', true, 0, undefined],
        ],
      },
      {
        name: 'unready runs but is never ready',
        images: ['everynode.dev/sim:unready'],
        times: [100, 10_000],
        expected: [
          ['Running', false, 0, undefined],
          ['Running', false, 0, undefined],
        ],
      },
    ];
  it.each(cases)('$name', ({ images, times, expected }) => {
    expect(timeline(admitted(...images), times)).toEqual(expected);
  });

  it('gives the pod IP only to admitted pods and rejects a node that fails the nodeSelector', () => {
    const rejected = admitPod(
      { ...spec('busybox'), nodeSelector: { disk: 'ssd' } },
      aNode('n1'),
      7,
      '10.244.0.9',
    );
    expect(rejected).toMatchObject({
      phase: 'Failed',
      podIP: '',
      rejection: { reason: 'NodeAffinity', message: 'Pod was rejected: Predicate NodeAffinity failed' },
    });
    expect(advancePodRun(rejected, 10_000, delays).dueAt).toBeUndefined();
  });
});

describe('the pod sandbox', () => {
  const withSandbox: RunDelays = { ...delays, sandboxMs: 40 };

  it('delays a new pod’s containers but not a container restarted in place', () => {
    const first = advancePodRun(admitted('busybox'), 0, withSandbox);
    expect(first.dueAt).toBe(100);
    const running = advancePodRun(first.run, 100, withSandbox).run;
    const [container] = running.containers;
    if (!container) throw new Error('no container');
    const restarted: PodRun = {
      ...running,
      containers: [
        {
          ...container,
          restartCount: 1,
          state: { kind: 'waiting', reason: 'ContainerCreating', since: 500 },
        },
      ],
    };
    expect(advancePodRun(restarted, 500, withSandbox).dueAt).toBe(560);
  });
});
