import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { aNode } from '../../support/builders.ts';
import {
  boundPod,
  conditionOf,
  eventually,
  type Harness,
  pause,
  startHarness,
  stripServerFields,
} from '../../support/runtime-harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.stop());

const running = (p: V1Pod | undefined) =>
  p?.status?.phase === 'Running' && conditionOf(p, 'Ready') === 'True';

describe('kubelets over the store', () => {
  it('takes a bound pod on a Ready node to Running and Ready, with IPs and container statuses', async () => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1')));
    const pod = await eventually(() => harness?.pod('p'), running);
    expect(pod?.status).toMatchObject({
      phase: 'Running',
      hostIP: expect.stringMatching(/^10\.0\./),
      podIP: expect.stringMatching(/^10\.24[4-7]\./),
      containerStatuses: [
        { name: 'main', ready: true, restartCount: 0, started: true, state: { running: {} } },
      ],
    });
    expect(
      ['Initialized', 'ContainersReady', 'PodReadyToStartContainers'].map((t) => conditionOf(pod, t)),
    ).toEqual(['True', 'True', 'True']);
  });

  it('registers a node created without conditions as Ready, with addresses and a kubelet version', async () => {
    harness = startHarness([]);
    harness.store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
    const node = await eventually(
      () => harness?.node('bare'),
      (n) => conditionOf(n, 'Ready') === 'True',
    );
    expect(node?.status?.nodeInfo?.kubeletVersion).toBe('v1.33.0');
    expect(node?.status?.addresses?.map((a) => a.type)).toEqual(['InternalIP', 'Hostname']);
  });

  it('leaves a node created with Ready=False not ready, and does not start its pods', async () => {
    harness = startHarness([aNode('n1', { ready: false })]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1')));
    await pause(40);
    expect(conditionOf(harness.node('n1'), 'Ready')).toBe('False');
    expect(harness.pod('p')?.status).toMatchObject({ phase: 'Pending' });
    expect(harness.pod('p')?.status?.startTime).toBeUndefined();
  });

  it('starts the pods of a node once it becomes Ready', async () => {
    harness = startHarness([aNode('n1', { ready: false })]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1')));
    await pause(20);
    harness.store.mutate(
      'nodes',
      undefined,
      'n1',
      (n) => {
        n.status = { conditions: [{ type: 'Ready', status: 'True' }] };
      },
      { subresource: 'status' },
    );
    await eventually(() => harness?.pod('p'), running);
  });

  it('marks pods not ready when their node stops being Ready, and ready again when it is back', async () => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1')));
    await eventually(() => harness?.pod('p'), running);
    const setReady = (status: string) =>
      harness?.store.mutate(
        'nodes',
        undefined,
        'n1',
        (n) => {
          n.status = { ...(n.status as object), conditions: [{ type: 'Ready', status }] };
        },
        { subresource: 'status' },
      );
    setReady('Unknown');
    await eventually(
      () => harness?.pod('p'),
      (p) => conditionOf(p, 'Ready') === 'False',
    );
    setReady('True');
    await eventually(() => harness?.pod('p'), running);
  });

  it('crashloop: restartCount grows and the container waits in CrashLoopBackOff; the pod stays Running, not ready', async () => {
    harness = startHarness([aNode('n1')], { timeScale: 0.001, crashLoopBackOffSeconds: 5 });
    harness.store.create(
      'pods',
      stripServerFields(boundPod('p', 'n1', { image: 'everynode.dev/sim:crashloop' })),
    );
    const pod = await eventually(
      () => harness?.pod('p'),
      (p) =>
        (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 &&
        p?.status?.containerStatuses?.[0]?.state?.waiting !== undefined,
    );
    const status = pod?.status?.containerStatuses?.[0];
    expect(status?.state?.waiting?.reason).toBe('CrashLoopBackOff');
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(pod?.status?.phase).toBe('Running');
    expect(conditionOf(pod, 'Ready')).toBe('False');
  });

  it.each([
    ['everynode.dev/sim:fail', 'Failed'],
    ['everynode.dev/sim:succeed', 'Succeeded'],
  ])('%s ends the pod in phase %s', async (image, phase) => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1', { image })));
    await eventually(
      () => harness?.pod('p'),
      (p) => p?.status?.phase === phase,
    );
    await pause(20);
    expect(harness.pod('p')?.status?.phase).toBe(phase);
  });

  it('rejects a pod bound directly to a node its nodeSelector does not match', async () => {
    harness = startHarness([aNode('n1')]);
    const pod = boundPod('p', 'n1');
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], nodeSelector: { disk: 'ssd' } };
    harness.store.create('pods', stripServerFields(pod));
    const rejected = await eventually(
      () => harness?.pod('p'),
      (p) => p?.status?.phase === 'Failed',
    );
    expect(rejected?.status).toMatchObject({ reason: 'NodeAffinity' });
  });

  it('ignore-sigterm: finishes a graceful deletion after the scaled grace period, not before', async () => {
    harness = startHarness([aNode('n1')], { timeScale: 0.002 });
    const image = 'everynode.dev/sim:ignore-sigterm';
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1', { grace: 50, image })));
    await eventually(() => harness?.pod('p'), running);
    harness.store.delete('pods', 'default', 'p');
    expect(harness.pod('p')?.metadata?.deletionTimestamp).toBeDefined();
    await pause(40);
    expect(harness.pod('p')).toBeDefined();
    await eventually(
      () => harness?.pod('p'),
      (p) => p === undefined,
      1000,
    );
  });

  it.each([
    {
      name: 'containers that heed SIGTERM: gone containerStopSeconds after the delete, long before the default 30 s grace',
      image: 'busybox',
      grace: undefined,
      timing: { timeScale: 0.1 },
      goneAfterMs: 100,
      goneByMs: 2500,
    },
    {
      name: 'ignore-sigterm: Terminating until its grace period ends, then gone',
      image: 'everynode.dev/sim:ignore-sigterm',
      grace: 5,
      timing: { timeScale: 0.1 },
      goneAfterMs: 500,
      goneByMs: 2500,
    },
    {
      name: 'the grace period caps a container slower to stop than it',
      image: 'busybox',
      grace: 3,
      timing: { timeScale: 0.1, containerStopSeconds: 25 },
      goneAfterMs: 300,
      goneByMs: 2000,
    },
  ])('deleting a running pod — $name', async ({ image, grace, timing, goneAfterMs, goneByMs }) => {
    harness = startHarness([aNode('n1')], timing);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1', { image, grace })));
    await eventually(() => harness?.pod('p'), running);
    const deletedAt = Date.now();
    harness.store.delete('pods', 'default', 'p');
    await eventually(
      () => harness?.pod('p'),
      (p) => p === undefined,
      goneByMs,
    );
    // A few ms of slack: the timer and Date.now round differently.
    expect(Date.now() - deletedAt).toBeGreaterThanOrEqual(goneAfterMs - 5);
  });

  it('removes a pod deleted with grace 0 at once, even one that ignores SIGTERM', async () => {
    harness = startHarness([aNode('n1')]);
    const image = 'everynode.dev/sim:ignore-sigterm';
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1', { image })));
    await eventually(() => harness?.pod('p'), running);
    harness.store.delete('pods', 'default', 'p', { gracePeriodSeconds: 0 });
    expect(harness.pod('p')).toBeUndefined();
  });

  it('keeps a deleted pod Terminating while its node is not Ready', async () => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(boundPod('p', 'n1', { grace: 1 })));
    await eventually(() => harness?.pod('p'), running);
    harness.store.mutate(
      'nodes',
      undefined,
      'n1',
      (n) => {
        n.status = { conditions: [{ type: 'Ready', status: 'Unknown' }] };
      },
      { subresource: 'status' },
    );
    harness.store.delete('pods', 'default', 'p');
    await pause(40);
    expect(harness.pod('p')?.metadata?.deletionTimestamp).toBeDefined();
  });
});
