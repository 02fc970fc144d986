/**
 * everynode taking over a DaemonSet the built-in controller ran, without restarting one pod: the
 * simulated cluster runs no DaemonSet controller, so the test plays kube-controller-manager's part
 * (its pods, their labels, affinity and tolerations, its ControllerRevision), deletes the apps/v1
 * DaemonSet with `--cascade=orphan`, and creates the everynode.dev/v1 DaemonSet with the same spec.
 * Every pod must keep its UID, none may be created or deleted, the revision must be adopted with
 * its hash, and `kubectl everynode rollout status` and `history` must show the rollout settled.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOLERATIONS } from '../support/kcm-daemon-set-controller.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'takeover';
/** The simulated cluster's nodes (more than six: generated ones, all alike). */
const NODES = Array.from({ length: 7 }, (_, i) => `node-0000${i + 1}`);
/** A hash as kube-controller-manager writes them (ComputeHash, SafeEncodeString): not everynode's. */
const KCM_HASH = '6f8b9d7c5d';

/** The agent DaemonSet as a user applies it for the built-in controller. */
const agent = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: NAMESPACE },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] },
    },
  },
};

/** The controller reference kube-controller-manager gives its pods and revisions. */
function ownerOf(ds: Readonly<V1DaemonSet>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    name: ds.metadata?.name ?? '',
    uid: ds.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ControllerRevision kube-controller-manager snapshots the template in (daemon update.go getPatch). */
function kcmRevision(ds: Readonly<V1DaemonSet>) {
  const template = structuredClone(ds.spec?.template) as unknown as Record<string, unknown>;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `agent-${KCM_HASH}`,
      namespace: NAMESPACE,
      labels: { app: 'agent', 'controller-revision-hash': KCM_HASH },
      ownerReferences: [ownerOf(ds)],
    },
    data: { spec: { template: { ...template, $patch: 'replace' } } },
    revision: 1,
  };
}

/** The daemon pod kube-controller-manager creates for `node` (controller.GetPodFromTemplate + daemon pod affinity). */
function kcmPod(ds: Readonly<V1DaemonSet>, node: string) {
  const template = structuredClone(ds.spec?.template);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'agent-',
      namespace: NAMESPACE,
      labels: {
        ...template?.metadata?.labels,
        'controller-revision-hash': KCM_HASH,
        'pod-template-generation': '1',
      },
      ownerReferences: [ownerOf(ds)],
    },
    spec: {
      ...template?.spec,
      tolerations: DAEMON_TOLERATIONS,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
          },
        },
      },
    },
  };
}

describe.runIf(kubectlBinary)('taking over an apps/v1 DaemonSet the built-in controller ran', () => {
  let world: PipelineWorld;
  const json = async <T>(args: readonly string[]): Promise<T> =>
    JSON.parse(await world.kubectl([...args, '-o', 'json'])) as T;
  /** `kubectl everynode ARGS` against the cluster, as kubectl runs the plugin. */
  const plugin = async (args: readonly string[]): Promise<string> => {
    const binary = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));
    const env = { ...process.env, KUBECONFIG: world.kubeconfigPath, HOME: world.stateDir };
    return (await promisify(execFile)(process.execPath, [binary, ...args], { env, timeout: 60_000 })).stdout;
  };
  const pods = async () =>
    (await json<{ items: V1Pod[] }>(['get', 'pods', '-n', NAMESPACE, '-l', 'app=agent'])).items;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', secured: true, nodes: NODES.length });
    await world.kubectl(['create', 'namespace', NAMESPACE]);
  });
  afterAll(async () => world?.stop());

  it('adopts every pod and the revision, creating, deleting and restarting none', async () => {
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent));
    const apps = await json<V1DaemonSet>(['get', 'ds', 'agent', '-n', NAMESPACE]);
    await world.kubectl(['create', '-f', '-'], JSON.stringify(kcmRevision(apps)));
    for (const node of NODES) await world.kubectl(['create', '-f', '-'], JSON.stringify(kcmPod(apps, node)));
    await world.until('the built-in controller’s pods run', async () => {
      const running = (await pods()).filter((pod) =>
        pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return running.length === NODES.length;
    });
    const before = (await pods()).map((pod) => `${pod.metadata?.uid}@${pod.spec?.nodeName}`).sort();

    await world.kubectl(['delete', 'ds', 'agent', '-n', NAMESPACE, '--cascade=orphan']);
    await world.until('garbage collection orphaned the pods', async () =>
      (await pods()).every((pod) => (pod.metadata?.ownerReferences ?? []).length === 0),
    );
    const { apiVersion: _, kind: __, metadata, spec } = apps;
    const eds = {
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: { name: metadata?.name, namespace: NAMESPACE },
      spec,
    };
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(eds));
    await world.until('every pod is the everynode DaemonSet’s', async () =>
      (await pods()).every((pod) => pod.metadata?.ownerReferences?.[0]?.apiVersion === 'everynode.dev/v1'),
    );
    await world.quiet();

    const after = await pods();
    expect(after.map((pod) => `${pod.metadata?.uid}@${pod.spec?.nodeName}`).sort()).toEqual(before);
    expect(world.pipeline.counters.get('PodsCreated')).toBe(0);
    expect(world.pipeline.counters.get('PodsDeleted')).toBe(0);
    for (const pod of after) expect(pod.metadata?.labels?.['controller-revision-hash']).toBe(KCM_HASH);
    const revisions = await json<{
      items: { metadata: { name: string; ownerReferences?: { kind: string; apiVersion: string }[] } }[];
    }>(['get', 'controllerrevisions', '-n', NAMESPACE]);
    expect(
      revisions.items.map((r) => [r.metadata.name, r.metadata.ownerReferences?.[0]?.apiVersion]),
    ).toEqual([[`agent-${KCM_HASH}`, 'everynode.dev/v1']]);
    const status = await plugin(['-n', NAMESPACE, 'rollout', 'status', 'eds/agent', '--timeout=20s']);
    expect(status).toMatch(/daemon set "agent" successfully rolled out/);
    const history = await plugin(['-n', NAMESPACE, 'rollout', 'history', 'eds/agent']);
    expect(history).toMatch(/^1\s/m);
  }, 120_000);
});
