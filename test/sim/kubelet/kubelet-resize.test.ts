import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { findKubectl, useKubectlSim } from '../../support/kubectl-harness.ts';
import { pollUntil } from '../../support/test-daemon-controller.ts';

const binary = findKubectl();

interface PodOptions {
  readonly node?: string;
  readonly cpu?: string;
  readonly limits?: Record<string, string>;
  readonly resizePolicy?: { resourceName: string; restartPolicy: string }[];
}

/** A pod manifest bound to `node`, one container `app` requesting `cpu` and 64Mi. */
function aPod(name: string, options: PodOptions = {}): string {
  const { node = 'worker-1', cpu = '100m', limits = { cpu: '1', memory: '128Mi' }, resizePolicy } = options;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'app',
          image: 'busybox:1.36',
          resources: { requests: { cpu, memory: '64Mi' }, limits },
          ...(resizePolicy ? { resizePolicy } : {}),
        },
      ],
    },
  });
}

const resize = (resources: object) => JSON.stringify({ spec: { containers: [{ name: 'app', resources }] } });

describe.runIf(binary)('in-place pod updates on the simulated cluster', () => {
  const sim = useKubectlSim(binary, { timing: { timeScale: 0.01, podResizeSeconds: 30 } });
  const { kubectl, ok } = sim;
  const read = (name: string) => sim.core.readNamespacedPod({ name, namespace: 'default' });
  const running = (pod: V1Pod) => pod.status?.containerStatuses?.[0]?.ready === true;
  const condition = (pod: V1Pod, type: string) => pod.status?.conditions?.find((c) => c.type === type);

  it('refuses a plain update of resources with upstream 422 wording and a diff', async () => {
    await ok(['apply', '-f', '-'], aPod('forbidden'));
    const result = await kubectl(['patch', 'pod', 'forbidden', '-p', resize({ requests: { cpu: '150m' } })]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'The Pod "forbidden" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{',
    );
    expect(result.stderr).toMatch(
      /^\+ \t+s"cpu": \{i: resource\.int64Amount\{value: 150, scale: -3\}, s: "150m"/m,
    );
  });

  it('restarts only the container whose image changed: new ID, restartCount 1, same uid and IP', async () => {
    await ok(['apply', '-f', '-'], aPod('image'));
    const before = await pollUntil(() => read('image'), running);
    const patch = {
      metadata: { labels: { rev: '2' } },
      spec: { containers: [{ name: 'app', image: 'busybox:1.37' }] },
    };
    await ok(['patch', 'pod', 'image', '-p', JSON.stringify(patch)]);
    const after = await pollUntil(
      () => read('image'),
      (p) => p.status?.containerStatuses?.[0]?.restartCount === 1 && running(p),
    );
    const [was, now] = [before.status?.containerStatuses?.[0], after.status?.containerStatuses?.[0]];
    expect(now?.image).toBe('busybox:1.37');
    expect(now?.containerID).not.toBe(was?.containerID);
    expect(now?.imageID).not.toBe(was?.imageID);
    expect(now?.lastState?.terminated?.exitCode).toBe(143);
    expect([after.metadata?.uid, after.status?.podIP]).toEqual([before.metadata?.uid, before.status?.podIP]);
    expect(after.metadata?.labels?.rev).toBe('2');
  });

  it('resizes without a restart through kubectl patch --subresource resize, InProgress meanwhile', async () => {
    await ok(['apply', '-f', '-'], aPod('grow'));
    await pollUntil(() => read('grow'), running);
    const patch = resize({
      requests: { cpu: '0.25', memory: '64Mi' },
      limits: { cpu: '1', memory: '128Mi' },
    });
    await ok(['patch', 'pod', 'grow', '--subresource', 'resize', '--type', 'merge', '-p', patch]);
    const during = await pollUntil(
      () => read('grow'),
      (p) => condition(p, 'PodResizeInProgress') !== undefined,
    );
    expect(condition(during, 'PodResizeInProgress')?.status).toBe('True');
    const done = await pollUntil(
      () => read('grow'),
      (p) => p.status?.containerStatuses?.[0]?.resources?.requests?.cpu === '250m',
    );
    expect(condition(done, 'PodResizeInProgress')).toBeUndefined();
    expect(done.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(done.status?.containerStatuses?.[0]?.allocatedResources).toEqual({ cpu: '0.25', memory: '64Mi' });
    const described = await ok(['describe', 'pod', 'grow']);
    expect(described).toMatch(/Restart Count:\s+0/);
    expect(described).toMatch(/Requests:\n\s+cpu:\s+250m/);
  });

  it('restarts the container when its resizePolicy for the resource says RestartContainer', async () => {
    const resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }];
    await ok(['apply', '-f', '-'], aPod('restart', { resizePolicy }));
    await pollUntil(() => read('restart'), running);
    await ok([
      'patch',
      'pod',
      'restart',
      '--subresource',
      'resize',
      '-p',
      resize({ requests: { cpu: '200m' } }),
    ]);
    const done = await pollUntil(
      () => read('restart'),
      (p) =>
        p.status?.containerStatuses?.[0]?.restartCount === 1 &&
        running(p) &&
        condition(p, 'PodResizeInProgress') === undefined,
    );
    expect(done.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe('200m');
    expect(await ok(['describe', 'pod', 'restart'])).toMatch(/Restart Count:\s+1/);
  });

  it('leaves a resize beyond the node allocatable pending as Infeasible', async () => {
    await ok(['apply', '-f', '-'], aPod('huge'));
    await pollUntil(() => read('huge'), running);
    await ok([
      'patch',
      'pod',
      'huge',
      '--subresource',
      'resize',
      '-p',
      resize({ requests: { cpu: '5' }, limits: { cpu: '5' } }),
    ]);
    const pending = await pollUntil(
      () => read('huge'),
      (p) => condition(p, 'PodResizePending') !== undefined,
    );
    expect(condition(pending, 'PodResizePending')).toMatchObject({
      status: 'True',
      reason: 'Infeasible',
      message: "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000",
    });
    expect(pending.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe('100m');
    expect(await ok(['describe', 'pod', 'huge'])).toMatch(/PodResizePending\s+True/);
  });

  it('defers a resize the other pods leave no room for, and applies it once one goes', async () => {
    await ok(
      ['apply', '-f', '-'],
      aPod('hog', { node: 'worker-ssd', cpu: '2', limits: { cpu: '2', memory: '128Mi' } }),
    );
    await ok(['apply', '-f', '-'], aPod('wants', { node: 'worker-ssd' }));
    await pollUntil(() => read('wants'), running);
    await ok([
      'patch',
      'pod',
      'wants',
      '--subresource',
      'resize',
      '-p',
      resize({ requests: { cpu: '3' }, limits: { cpu: '3' } }),
    ]);
    const deferred = await pollUntil(
      () => read('wants'),
      (p) => condition(p, 'PodResizePending') !== undefined,
    );
    expect(condition(deferred, 'PodResizePending')).toMatchObject({
      reason: 'Deferred',
      message: "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
    });
    await ok(['delete', 'pod', 'hog', '--wait=false']);
    const applied = await pollUntil(
      () => read('wants'),
      (p) => p.status?.containerStatuses?.[0]?.resources?.requests?.cpu === '3',
    );
    expect(condition(applied, 'PodResizePending')).toBeUndefined();
  });

  it('refuses resizes upstream refuses, with its wording', async () => {
    await ok(['apply', '-f', '-'], aPod('rules'));
    await pollUntil(() => read('rules'), running);
    const cases = [
      {
        patch: resize({ limits: { memory: '100Mi' } }),
        message:
          'spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer',
      },
      {
        patch: JSON.stringify([{ op: 'remove', path: '/spec/containers/0/resources/limits/memory' }]),
        type: 'json',
        message: 'spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed',
      },
      {
        patch: resize({ requests: { cpu: '1', memory: '128Mi' } }),
        message: 'spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
      },
      {
        patch: JSON.stringify({ spec: { containers: [{ name: 'app', image: 'busybox:1.37' }] } }),
        message: '',
      },
    ];
    for (const c of cases) {
      const result = await kubectl([
        'patch',
        'pod',
        'rules',
        '--subresource',
        'resize',
        '--type',
        c.type ?? 'strategic',
        '-p',
        c.patch,
      ]);
      if (c.message === '') {
        // Only resources and resizePolicy are taken: an image change through resize is dropped.
        expect(result.stdout).toContain('pod/rules patched (no change)');
      } else expect(result.stderr).toContain(c.message);
    }
  });

  it('serves pods/resize in discovery and checks RBAC on the resize subresource', async () => {
    const raw = JSON.parse(await ok(['get', '--raw', '/api/v1'])) as {
      resources: { name: string; verbs: string[] }[];
    };
    expect(raw.resources.find((r) => r.name === 'pods/resize')?.verbs).toEqual(['get', 'patch', 'update']);
    const got = JSON.parse(
      await ok(['get', 'pod', 'rules', '--subresource', 'resize', '-o', 'json']),
    ) as V1Pod;
    expect(got.metadata?.name).toBe('rules');
  });
});
