import { readFileSync } from 'node:fs';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { findKubectl, tableRows, useKubectlSim } from '../../support/kubectl-harness.ts';
import { createDaemonPods, pollUntil } from '../../support/test-daemon-controller.ts';

const binary = findKubectl();
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

/** A DaemonSet manifest in namespace default: `app=<name>`, one container running `image`. */
function dsManifest(name: string, image: string, labels: Record<string, string> = { app: name }): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'main', image, command: ['sleep', 'infinity'] }] },
      },
    },
  });
}

describe.runIf(binary)('kubectl against the simulated cluster', () => {
  const sim = useKubectlSim(binary, { timing: { timeScale: 0.01 } });
  const { kubectl, ok } = sim;

  it('applies the seed fixtures; `kubectl get ds` shows the real columns', async () => {
    await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kiada\n');
    const applied = await ok(
      ['apply', '-f', '-'],
      [fixture('demo.yaml'), fixture('fluentd-elasticsearch.yaml'), fixture('node-selector-ds.yaml')].join(
        '\n---\n',
      ),
    );
    expect(applied.trim().split('\n')).toEqual([
      'daemonset.apps/demo created',
      'daemonset.apps/fluentd-elasticsearch created',
      'daemonset.apps/ssd-monitor created',
    ]);
    const rows = tableRows(await ok(['get', 'ds', '-A']));
    expect(rows[0]).toEqual([
      'NAMESPACE',
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'NODE SELECTOR',
      'AGE',
    ]);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[7]])).toEqual([
      ['kiada', 'demo', '<none>'],
      ['kiada', 'ssd-monitor', 'disk=ssd'],
      ['kube-system', 'fluentd-elasticsearch', '<none>'],
    ]);
    const wide = tableRows(await ok(['get', 'ds', 'ssd-monitor', '-n', 'kiada', '-o', 'wide']));
    expect(wide[0]?.slice(-3)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(wide[1]?.slice(-3)).toEqual(['main', 'busybox', 'app=ssd-monitor']);
  });

  it('`kubectl get nodes` shows STATUS ROLES AGE VERSION as a real cluster does', async () => {
    await pollUntil(
      async () => (await sim.core.listNode()).items,
      (nodes) => nodes.every((n) => n.status?.nodeInfo),
    );
    const rows = tableRows(await ok(['get', 'nodes']));
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const byName = Object.fromEntries(rows.slice(1).map((r) => [r[0], [r[1], r[2], r[4]]]));
    expect(byName).toMatchObject({
      'cordoned-1': ['Ready,SchedulingDisabled', '<none>', 'v1.33.0'],
      'master-1': ['Ready', 'master', 'v1.33.0'],
      'notready-1': ['NotReady', '<none>', 'v1.33.0'],
      'worker-1': ['Ready', '<none>', 'v1.33.0'],
    });
  });

  it('creates, waits for, lists, patches and deletes a pod; -o wide shows its node', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'web', image: 'nginx' }] },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(pod));
    await ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=20s']);
    const wide = tableRows(await ok(['get', 'pod', 'web', '-o', 'wide']));
    expect(wide[0]?.slice(0, 7)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE']);
    expect([wide[1]?.[1], wide[1]?.[2], wide[1]?.[6]]).toEqual(['1/1', 'Running', 'worker-ssd']);
    await ok(['patch', 'pod', 'web', '-p', '{"metadata":{"labels":{"tier":"front"}}}']);
    expect((await ok(['get', 'pods', '-l', 'tier=front', '-o', 'name'])).trim()).toBe('pod/web');
    await ok(['delete', 'pod', 'web', '--timeout=20s']);
    const gone = await kubectl(['get', 'pod', 'web']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NotFound');
  });

  it('`kubectl apply` of the same DaemonSet with a new image changes the image and keeps everything else', async () => {
    await ok(['apply', '-f', '-'], dsManifest('applied', 'busybox:1.36'));
    await ok(['set', 'env', 'ds/applied', 'FOO=bar']);
    await ok(['label', 'ds', 'applied', 'owner=team']);
    await ok(['apply', '-f', '-'], dsManifest('applied', 'busybox:1.37'));
    const ds = await sim.apps.readNamespacedDaemonSet({ namespace: 'default', name: 'applied' });
    expect(ds.spec?.template.spec?.containers).toEqual([
      expect.objectContaining({
        name: 'main',
        image: 'busybox:1.37',
        command: ['sleep', 'infinity'],
        env: [{ name: 'FOO', value: 'bar' }],
      }),
    ]);
    expect(ds.metadata?.labels).toEqual({ owner: 'team' });
    expect(ds.metadata?.generation).toBe(3);
  });

  it('`kubectl delete ds --cascade=orphan` keeps the pods; a plain delete removes them through GC', async () => {
    const podsOf = async (app: string): Promise<V1Pod[]> =>
      (await sim.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items;
    for (const name of ['orphaning', 'cascading']) {
      await ok(['apply', '-f', '-'], dsManifest(name, 'busybox'));
      expect(await createDaemonPods(sim.core, sim.apps, 'default', name)).toHaveLength(3);
    }
    await ok(['delete', 'ds', 'orphaning', '--cascade=orphan']);
    const orphans = await pollUntil(
      () => podsOf('orphaning'),
      (pods) => pods.every((p) => !p.metadata?.ownerReferences?.length),
    );
    expect(orphans).toHaveLength(3);
    expect(orphans.every((p) => !p.metadata?.deletionTimestamp && !p.metadata?.ownerReferences?.length)).toBe(
      true,
    );
    await ok(['delete', 'ds', 'cascading']);
    expect(
      await pollUntil(
        () => podsOf('cascading'),
        (pods) => pods.length === 0,
      ),
    ).toEqual([]);
  });

  it('a stale update gets 409 Conflict', async () => {
    await ok(['apply', '-f', '-'], dsManifest('stale', 'busybox'));
    const old = JSON.parse(await ok(['get', 'ds', 'stale', '-o', 'json'])) as V1DaemonSet;
    await ok(['label', 'ds', 'stale', 'touched=yes']);
    const replaced = await kubectl(
      ['replace', '-f', '-'],
      JSON.stringify({ ...old, metadata: { ...old.metadata, labels: { x: 'y' } } }),
    );
    expect(replaced.code).toBe(1);
    expect(replaced.stderr).toContain('Error from server (Conflict)');
    expect(replaced.stderr).toContain('the object has been modified');
  });

  it('an invalid DaemonSet gets 422 Invalid naming the field', async () => {
    const result = await kubectl(['apply', '-f', '-'], dsManifest('mismatch', 'busybox', { app: 'other' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The DaemonSet "mismatch" is invalid');
    expect(result.stderr).toContain('spec.template.metadata.labels');
  });
});

describe.runIf(binary)('kubectl applying the seed nodes to an empty cluster', () => {
  const sim = useKubectlSim(binary, { nodes: 0, timing: { timeScale: 0.01 } });
  const { kubectl } = sim;

  it('applies nodes.yaml (a kind: List) with default validation; the kubelets keep each Ready condition as given', async () => {
    const applied = await kubectl(
      ['apply', '-f', '-'],
      readFileSync(new URL('../../../lib/sim/fixtures/nodes.yaml', import.meta.url), 'utf8'),
    );
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toHaveLength(6);
    const nodes = await pollUntil(
      async () => (await sim.core.listNode()).items,
      (items) => items.length === 6 && items.every((n) => n.status?.nodeInfo),
    );
    const ready = Object.fromEntries(
      nodes.map((n) => [n.metadata?.name, n.status?.conditions?.find((c) => c.type === 'Ready')?.status]),
    );
    expect(ready).toEqual({
      'cordoned-1': 'True',
      'gpu-dedicated': 'True',
      'master-1': 'True',
      'notready-1': 'False',
      'worker-1': 'True',
      'worker-ssd': 'True',
    });
  });
});
