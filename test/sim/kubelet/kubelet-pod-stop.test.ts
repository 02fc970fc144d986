import type { V1ContainerStatus, V1PodSpec, V1PodStatus } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  admitPod,
  advancePodRun,
  type PodRun,
  type RunDelays,
} from '../../../lib/sim/kubelet/kubelet-pod-run.ts';
import { runOfStoredPod, stopPodRun } from '../../../lib/sim/kubelet/kubelet-pod-stop.ts';
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

/** A pod of `images` admitted at 0 and advanced to `at` (plain containers are ready from 150 on). */
function runAt(at: number, ...images: string[]): PodRun {
  return advancePodRun(admitPod(spec(...images), aNode('n1'), 0, '10.244.0.2'), at, delays).run;
}

/** Each container as `state exitCode@finishedAt`, e.g. `terminated 143@1020` or `running`. */
function containersOf(run: Readonly<PodRun>): string[] {
  return run.containers.map((c) =>
    c.state.kind === 'terminated'
      ? `terminated ${c.state.exitCode}@${c.state.finishedAt}`
      : c.state.kind === 'waiting'
        ? `waiting ${c.state.reason}`
        : 'running',
  );
}

describe('stopPodRun then advancePodRun', () => {
  const cases: {
    name: string;
    run: PodRun;
    kill: (run: PodRun) => PodRun;
    at: number;
    expected: { phase: string; containers: string[]; dueAt: number | undefined };
  }[] = [
    {
      name: 'a container that heeds SIGTERM exits stopMs after it, with 143',
      run: runAt(1000, 'busybox'),
      kill: (run) => stopPodRun(run, 1000, 30_000),
      at: 1019,
      expected: { phase: 'Running', containers: ['running'], dueAt: 1020 },
    },
    {
      name: '…and is gone once stopMs has passed; nothing more is due',
      run: runAt(1000, 'busybox'),
      kill: (run) => stopPodRun(run, 1000, 30_000),
      at: 1020,
      expected: { phase: 'Failed', containers: ['terminated 143@1020'], dueAt: undefined },
    },
    {
      name: 'ignore-sigterm runs until SIGKILL at the end of the grace period, with 137',
      run: runAt(1000, 'busybox', 'everynode.dev/sim:ignore-sigterm'),
      kill: (run) => stopPodRun(run, 1000, 500),
      at: 1499,
      expected: { phase: 'Failed', containers: ['terminated 143@1020', 'running'], dueAt: 1500 },
    },
    {
      name: 'ignore-sigterm is killed exactly at SIGKILL',
      run: runAt(1000, 'everynode.dev/sim:ignore-sigterm'),
      kill: (run) => stopPodRun(run, 1000, 500),
      at: 5000,
      expected: { phase: 'Failed', containers: ['terminated 137@1500'], dueAt: undefined },
    },
    {
      name: 'a grace period shorter than stopMs kills with SIGKILL when it ends',
      run: runAt(1000, 'busybox'),
      kill: (run) => stopPodRun(run, 1000, 5),
      at: 5000,
      expected: { phase: 'Failed', containers: ['terminated 137@1005'], dueAt: undefined },
    },
    {
      name: 'a grace period of 0 kills at once',
      run: runAt(1000, 'everynode.dev/sim:ignore-sigterm'),
      kill: (run) => stopPodRun(run, 1000, 0),
      at: 1000,
      expected: { phase: 'Failed', containers: ['terminated 137@1000'], dueAt: undefined },
    },
    {
      name: 'a second, shorter grace period brings SIGKILL forward',
      run: runAt(1000, 'everynode.dev/sim:ignore-sigterm'),
      kill: (run) => stopPodRun(stopPodRun(run, 1000, 30_000), 1100, 100),
      at: 1100,
      expected: { phase: 'Running', containers: ['running'], dueAt: 1200 },
    },
    {
      name: 'a second, longer grace period does not push SIGKILL back',
      run: runAt(1000, 'everynode.dev/sim:ignore-sigterm'),
      kill: (run) => stopPodRun(stopPodRun(run, 1000, 300), 1100, 30_000),
      at: 1100,
      expected: { phase: 'Running', containers: ['running'], dueAt: 1300 },
    },
    {
      name: 'a terminal phase given is kept after the containers are killed (never Failed from Succeeded)',
      run: runAt(1000, 'busybox'),
      kill: (run) => stopPodRun(run, 1000, 30_000, 'Succeeded'),
      at: 5000,
      expected: { phase: 'Succeeded', containers: ['terminated 143@1020'], dueAt: undefined },
    },
    {
      name: 'a terminal phase given is kept while the containers still stop',
      run: runAt(1000, 'busybox'),
      kill: (run) => stopPodRun(run, 1000, 30_000, 'Failed'),
      at: 1000,
      expected: { phase: 'Failed', containers: ['running'], dueAt: 1020 },
    },
    {
      name: 'a container waiting in CrashLoopBackOff is never restarted',
      run: runAt(400, 'everynode.dev/sim:crashloop'),
      kill: (run) => stopPodRun(run, 400, 30_000),
      at: 100_000,
      expected: { phase: 'Running', containers: ['waiting CrashLoopBackOff'], dueAt: undefined },
    },
    {
      name: 'a container still being created never starts',
      run: runAt(50, 'busybox'),
      kill: (run) => stopPodRun(run, 50, 30_000),
      at: 100_000,
      expected: { phase: 'Pending', containers: ['waiting ContainerCreating'], dueAt: undefined },
    },
  ];
  it.each(cases)('$name', ({ run, kill, at, expected }) => {
    const next = advancePodRun(kill(run), at, delays);
    expect({ phase: next.run.phase, containers: containersOf(next.run), dueAt: next.dueAt }).toEqual(
      expected,
    );
  });
});

describe('runOfStoredPod', () => {
  const container = (name: string, state: V1ContainerStatus['state']): V1ContainerStatus => ({
    name,
    image: 'busybox',
    imageID: '',
    ready: false,
    restartCount: 0,
    state,
  });
  const running = (name: string) => container(name, { running: {} });
  const waiting = (name: string) => container(name, { waiting: { reason: 'ContainerCreating' } });
  const cases: { name: string; status: V1PodStatus | undefined; expected: string[]; phase: string }[] = [
    {
      name: 'a pod never started has nothing running',
      status: undefined,
      expected: ['waiting ContainerCreating', 'waiting ContainerCreating'],
      phase: 'Pending',
    },
    {
      name: 'the containers the status shows running run',
      status: { phase: 'Running', podIP: '10.244.0.7', containerStatuses: [running('c0'), waiting('c1')] },
      expected: ['running', 'waiting ContainerCreating'],
      phase: 'Running',
    },
    {
      name: 'an unknown phase is Pending',
      status: { phase: 'Unknown', containerStatuses: [running('c0'), running('c1')] },
      expected: ['running', 'running'],
      phase: 'Pending',
    },
  ];
  it.each(cases)('$name', ({ status, expected, phase }) => {
    const run = runOfStoredPod(spec('busybox', 'everynode.dev/sim:ignore-sigterm'), status, 7);
    expect(containersOf(run)).toEqual(expected);
    expect(run.phase).toBe(phase);
    expect(run.containers.map((c) => c.behavior)).toEqual(['run', 'ignore-sigterm']);
  });

  it('gives a killed pod rebuilt from a running status its stop time', () => {
    const stored = runOfStoredPod(
      spec('busybox'),
      { phase: 'Running', containerStatuses: [running('c0')] },
      0,
    );
    expect(advancePodRun(stopPodRun(stored, 0, 30_000), 0, delays).dueAt).toBe(20);
  });
});
